"""Echoloop's training job templates (run in the train venv: tools/python/venv.sh train)."""

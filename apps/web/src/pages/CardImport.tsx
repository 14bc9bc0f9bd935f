import { useId, useState, type ChangeEvent, type DragEvent } from 'react';
import { api, errorMessage } from '../api/client';
import type { GatewayPaths as paths } from '@echoloop/vocabulary';
import './card-import.css';
import { ErrorNote } from '../ui/ErrorNote';

export type ImportedCharacter =
  paths['/v1/characters/import']['post']['responses'][201]['content']['application/json'];

/** The gateway's upload limit (MAX_UPLOAD_BYTES of the characters controller). */
const MAX_BYTES = 20 * 1024 * 1024;

/**
 * Imports a Character Card file (admins): dropped on the zone, or chosen with the file input, which the keyboard
 * reaches. The gateway reads PNG (chara/ccv3), JSON and CHARX and says what is wrong with any other file.
 */
export function CardImport({ onImported }: { onImported: (character: ImportedCharacter) => void }) {
  const id = useId();
  const [dragging, setDragging] = useState(false);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<string | null>(null);

  const upload = async (file: File) => {
    setError(null);
    if (file.size > MAX_BYTES) {
      setStatus('');
      setError(`${file.name} is too large: a card file may be at most 20 MB.`);
      return;
    }
    setBusy(true);
    setStatus(`Importing ${file.name}…`);
    const form = new FormData();
    form.append('file', file, file.name);
    const { data, error: failure } = await api.POST('/v1/characters/import', {
      // The typed body only names the field: the form is what is sent.
      body: { file: file.name },
      bodySerializer: () => form,
    });
    setBusy(false);
    if (data) {
      setStatus(`Imported ${data.name}.`);
      onImported(data);
    } else {
      setStatus('');
      setError(`Could not import ${file.name}: ${errorMessage(failure, 'the upload failed')}`);
    }
  };

  const chosen = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // Cleared, so choosing the same file again (after fixing it) is a change too.
    event.target.value = '';
    if (file) void upload(file);
  };

  const over = (event: DragEvent<HTMLDivElement>) => {
    if (!event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = busy ? 'none' : 'copy';
    setDragging(true);
  };

  const left = (event: DragEvent<HTMLDivElement>) => {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
  };

  const dropped = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const files = event.dataTransfer.files;
    if (busy || files.length === 0) return;
    if (files.length > 1) {
      setError('Drop one card file at a time.');
      return;
    }
    const file = files[0];
    if (file) void upload(file);
  };

  return (
    <section className="card-import" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import a card</h2>
      <div
        className={dragging ? 'card-drop card-drop-active' : 'card-drop'}
        data-busy={busy || undefined}
        onDragEnter={over}
        onDragOver={over}
        onDragLeave={left}
        onDrop={dropped}
      >
        <p id={`${id}-hint`}>
          Drag a Character Card file here: a PNG with the card inside, a JSON card or a CHARX archive (V1, V2
          or V3, at most 20 MB).
        </p>
        <label className="card-drop-choose">
          <input
            type="file"
            className="visually-hidden"
            accept=".png,.json,.charx,image/png,application/json"
            aria-describedby={`${id}-hint`}
            disabled={busy}
            onChange={chosen}
          />
          Choose a file
        </label>
      </div>
      <p role="status" className="muted">
        {status}
      </p>
      <ErrorNote error={error} />
    </section>
  );
}

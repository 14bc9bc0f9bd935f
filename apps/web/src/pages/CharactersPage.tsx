import { useEffect, useState } from 'react';
import { api, errorMessage, type Reply } from '../api/client';
import { navigate } from '../router';
import { Avatar } from './Avatar';
import { CardImport } from './CardImport';
import { ErrorNote } from '../ui/ErrorNote';

type Character = Reply<'get', '/v1/characters'>['items'][number];

/** The characters to chat with; choosing one starts a conversation with its greeting. Admins import cards here. */
export function CharactersPage({ canImport }: { canImport: boolean }) {
  const [characters, setCharacters] = useState<Character[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState<string | null>(null);

  useEffect(() => {
    void api.GET('/v1/characters').then(({ data, error: failure }) => {
      if (data) setCharacters(data.items);
      else setError(errorMessage(failure, 'Could not load the characters'));
    });
  }, []);

  const start = async (characterId: string) => {
    setStarting(characterId);
    const { data, error: failure } = await api.POST('/v1/conversations', { body: { characterId } });
    setStarting(null);
    if (data) navigate(`/chat/${data.id}`);
    else setError(errorMessage(failure, 'Could not start a conversation'));
  };

  return (
    <section className="page">
      <h1>Characters</h1>
      {canImport && (
        <CardImport onImported={(character) => setCharacters((current) => [...(current ?? []), character])} />
      )}
      <ErrorNote error={error} />
      {characters === null && !error && <p aria-live="polite">Loading…</p>}
      {characters?.length === 0 && <p>No characters yet.</p>}
      <ul className="character-grid">
        {characters?.map((character) => (
          <li key={character.id}>
            <button
              type="button"
              className="character-card"
              disabled={starting !== null}
              onClick={() => void start(character.id)}
            >
              <Avatar characterId={character.id} name={character.name} size={72} />
              <span className="character-name">{character.name}</span>
              <span className="character-action">Start a chat</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

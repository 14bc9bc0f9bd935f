import { useEffect, useState } from 'react';
import { api } from './client';

/** The characters' ids and names (tables, filters); empty until loaded. */
export function useCharacters(): { id: string; name: string }[] {
  const [characters, setCharacters] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    let active = true;
    void api.GET('/v1/characters').then(({ data }) => {
      if (active && data) setCharacters(data.items.map((c) => ({ id: c.id, name: c.name })));
    });
    return () => {
      active = false;
    };
  }, []);
  return characters;
}

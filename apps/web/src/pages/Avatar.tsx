import { useEffect, useState } from 'react';
import { api } from '../api/client';

/** A character's picture (`GET /v1/characters/:id/avatar`, which needs the bearer token), or its initial. */
export function Avatar({
  characterId,
  name,
  size = 48,
}: {
  characterId: string;
  name: string;
  size?: number;
}) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let url: string | null = null;
    let cancelled = false;
    void api
      .GET('/v1/characters/{id}/avatar', { params: { path: { id: characterId } }, parseAs: 'blob' })
      .then(({ data }) => {
        if (cancelled || !(data instanceof Blob) || data.size === 0) return;
        url = URL.createObjectURL(data);
        setSrc(url);
      });
    return () => {
      cancelled = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [characterId]);
  return src ? (
    <img className="avatar" src={src} alt="" width={size} height={size} />
  ) : (
    <span className="avatar avatar-initial" aria-hidden="true" style={{ width: size, height: size }}>
      {name.slice(0, 1).toUpperCase()}
    </span>
  );
}

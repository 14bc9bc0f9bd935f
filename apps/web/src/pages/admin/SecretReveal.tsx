import type { ApiKeyWithSecret } from './api-keys';
import { when } from '../../ui/format';
import { OneTimeSecret } from '../../ui/OneTimeSecret';

/** A staff key's new secret, shown once. */
export function SecretReveal({
  apiKey,
  rotated,
  onDone,
}: {
  apiKey: ApiKeyWithSecret;
  rotated: boolean;
  onDone: () => void;
}) {
  return (
    <OneTimeSecret
      secret={apiKey.key}
      title={`${rotated ? 'New secret' : 'Secret'} for “${apiKey.name}”`}
      label={`Secret of ${apiKey.name}`}
      onDone={onDone}
    >
      <p>
        <strong>Copy it now: you will not see it again.</strong> Only a hash is stored; if it is lost, rotate
        the key for a new one.
      </p>
      {rotated && apiKey.previousSecretValidUntil && (
        <p>The old secret keeps working until {when(apiKey.previousSecretValidUntil)}.</p>
      )}
    </OneTimeSecret>
  );
}

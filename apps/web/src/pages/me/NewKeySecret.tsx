import type { PersonalKeyWithSecret } from './personal-keys';
import { OneTimeSecret } from '../../ui/OneTimeSecret';

/** A new personal key's secret, shown once. */
export function NewKeySecret({ apiKey, onDone }: { apiKey: PersonalKeyWithSecret; onDone: () => void }) {
  return (
    <OneTimeSecret
      secret={apiKey.key}
      title={`Your key for “${apiKey.name}”`}
      label={`Key for ${apiKey.name}`}
      onDone={onDone}
    >
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Paste it into your app as its API key. If
        you lose it, revoke it and create another.
      </p>
    </OneTimeSecret>
  );
}

/**
 * The channel on which triggers on `checkpoints`, `characters` and `experiments` (migration GatewayCluster) announce
 * a committed change as `kind:id`; the adapter reconciler announces where an adapter is served the same way.
 */
export const CACHE_CHANGES_CHANNEL = 'echoloop_cache_changes';

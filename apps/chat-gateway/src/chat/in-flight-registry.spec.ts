import { InFlightRegistry } from './in-flight-registry';
import type { TurnSink } from './turn-sink';

const message = (id: string) => ({ id, conversationId: 'c-1', clientMessageId: `k-${id}` });

function recorder(key?: string) {
  const deltas: string[] = [];
  const sink: TurnSink = {
    ...(key && { key }),
    delta: (event) => deltas.push(event.delta),
    done: () => undefined,
    error: () => undefined,
  };
  return { sink, deltas };
}

describe('InFlightRegistry', () => {
  it('counts a user’s streaming and starting turns against the limit, with no await between check and take', async () => {
    const registry = new InFlightRegistry();
    const limit = (streams: number) => {
      if (streams >= 2) throw new Error('too many');
    };
    registry.begin('u', message('m1'), recorder().sink);
    let release: () => void = () => undefined;
    const starting = registry.withSlot('u', limit, () => new Promise<void>((resolve) => (release = resolve)));
    await expect(registry.withSlot('u', limit, async () => undefined)).rejects.toThrow('too many');
    // Another user is not affected.
    await expect(registry.withSlot('v', limit, async () => 'ok')).resolves.toBe('ok');
    release();
    await starting;
  });

  it('gives a resuming client the text so far, then the later deltas; one socket resuming twice gets them once', () => {
    const registry = new InFlightRegistry();
    const sender = recorder();
    const reply = registry.begin('u', message('m1'), sender.sink);
    reply.sink.delta({ conversationId: 'c-1', replyId: reply.replyId, index: 0, delta: 'Hello ' });
    const back = recorder('socket-2');
    expect(registry.resume('u', 'c-1', back.sink)).toEqual([
      { replyId: reply.replyId, userMessageId: 'm1', index: 0, content: 'Hello ' },
    ]);
    registry.resume('u', 'c-1', back.sink);
    reply.sink.delta({ conversationId: 'c-1', replyId: reply.replyId, index: 1, delta: 'there' });
    expect(back.deltas).toEqual(['there']);
    expect(sender.deltas).toEqual(['Hello ', 'there']);
    // Someone else's conversation, or another of theirs, has nothing to resume.
    expect(registry.resume('other', 'c-1', recorder().sink)).toEqual([]);
  });

  it('stops only the user’s own reply, and joins a resend by its clientMessageId', () => {
    const registry = new InFlightRegistry();
    const reply = registry.begin('u', message('m1'), recorder().sink);
    expect(registry.stop('intruder', reply.replyId)).toBe(false);
    expect(registry.joinResend('c-1', 'k-m1', recorder().sink)).toEqual({
      userMessageId: 'm1',
      replyId: reply.replyId,
    });
    expect(registry.stop('u', reply.replyId)).toBe(true);
    expect(reply.abort.signal.aborted).toBe(true);
    registry.finish(reply);
    expect(registry.join('m1', recorder().sink)).toBeUndefined();
  });
});

import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { InFlightRegistry } from './in-flight-registry';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { StreamSlots } from './stream-slots';
import { TurnGatesRepository } from '../limits/turn-gates.repository';

describe('StreamSlots', () => {
  const gates = { giveBack: jest.fn(), renew: jest.fn() };
  const registry = { slots: jest.fn() };
  const logger = { warn: jest.fn() };
  const env = gatewayEnv.parse({ RATE_LIMIT_PER_MINUTE: '30', STREAM_SLOT_TTL_MS: '60000' });
  let slots: StreamSlots;

  beforeEach(async () => {
    for (const mock of [gates, registry, logger]) Object.values(mock).forEach((fn) => fn.mockReset());
    gates.giveBack.mockResolvedValue(undefined);
    gates.renew.mockResolvedValue(undefined);
    const moduleRef = await Test.createTestingModule({
      providers: [
        StreamSlots,
        { provide: TurnGatesRepository, useValue: gates },
        { provide: InFlightRegistry, useValue: registry },
        { provide: GATEWAY_ENV, useValue: env },
        { provide: PinoLogger, useValue: logger },
      ],
    }).compile();
    slots = moduleRef.get(StreamSlots);
  });

  it('gives back a slot, and the rate-limit token only for a turn that was not one', () => {
    slots.giveBack('u1', { slotId: 's1' });
    slots.giveBack('u1', { slotId: 's2', token: true });
    slots.giveBack('u1', { token: true });
    expect(gates.giveBack.mock.calls).toEqual([
      ['u1', 's1', false, 30],
      ['u1', 's2', true, 30],
      ['u1', '', true, 30],
    ]);
  });

  it('gives nothing back when there is neither a slot nor a token', () => {
    slots.giveBack('u1', {});
    expect(gates.giveBack).not.toHaveBeenCalled();
  });

  it('logs a failed give-back without the caller seeing it (the slot expires by itself)', async () => {
    gates.giveBack.mockRejectedValueOnce(new Error('database down'));
    expect(() => slots.giveBack('u1', { slotId: 's1' })).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ userId: 'u1' }), expect.any(String));
  });

  it('renews the slots of replies streaming here, each user once, to the TTL from now', async () => {
    registry.slots.mockReturnValue([
      { userId: 'u1', slotId: 's1' },
      { userId: 'u1', slotId: 's2' },
      { userId: 'u2', slotId: 's3' },
    ]);
    await slots.renew();
    expect(gates.renew).toHaveBeenCalledWith(['u1', 'u2'], ['s1', 's2', 's3'], 60_000);
  });

  it('renews nothing when no reply streams here, and survives a failed renewal', async () => {
    registry.slots.mockReturnValue([]);
    await slots.renew();
    expect(gates.renew).not.toHaveBeenCalled();
    registry.slots.mockReturnValue([{ userId: 'u1', slotId: 's1' }]);
    gates.renew.mockRejectedValueOnce(new Error('database down'));
    await expect(slots.renew()).resolves.toBeUndefined();
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });
});

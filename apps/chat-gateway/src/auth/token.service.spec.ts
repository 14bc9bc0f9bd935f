import { CLOCK } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { GATEWAY_ENV, type GatewayEnv, gatewayEnv } from '../env';
import { TokenService } from './token.service';

const SECRET = 'x'.repeat(32);
const key = (secret: string) => new TextEncoder().encode(secret);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The service, on a clock that starts now and that `advance` moves. */
async function setUpWithClock(
  env: GatewayEnv = gatewayEnv.parse({ JWT_SECRET: SECRET, JWT_TTL_SECONDS: '60' }),
  start = new Date(),
) {
  let now = start;
  const module = await Test.createTestingModule({
    providers: [
      TokenService,
      { provide: GATEWAY_ENV, useValue: env },
      { provide: CLOCK, useValue: () => now },
    ],
  }).compile();
  return {
    tokens: module.get(TokenService),
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

const setUp = async (env?: GatewayEnv) => (await setUpWithClock(env)).tokens;

/** A token shaped like the service's own, so each test changes exactly one thing about it. */
function forged(
  claims: Record<string, unknown>,
  { secret = SECRET, exp = '60s' as string | number | null } = {},
): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer('echoloop').setIssuedAt();
  if (exp !== null) jwt = jwt.setExpirationTime(exp);
  return jwt.sign(key(secret));
}

describe('TokenService', () => {
  const userId = randomUUID();
  const sessionId = randomUUID();

  it('reads the environment it is given: the secret and a 60 s lifetime', () => {
    const env = gatewayEnv.parse({ JWT_SECRET: SECRET, JWT_TTL_SECONDS: '60' });

    expect(env.JWT_SECRET).toBe(SECRET);
    expect(env.JWT_TTL_SECONDS).toBe(60);
    expect(() => gatewayEnv.parse({ JWT_SECRET: 'too short' })).toThrow(/JWT_SECRET/);
  });

  it('round-trips an issued token to the user and session it names', async () => {
    const tokens = await setUp();

    const token = await tokens.issue({ userId, sessionId });

    await expect(tokens.verify(token)).resolves.toEqual({ userId, sessionId });
  });

  it('issues tokens that live JWT_TTL_SECONDS and carry no roles', async () => {
    const tokens = await setUp();

    const payload = decodeJwt(await tokens.issue({ userId, sessionId }));

    expect(tokens.ttlSeconds).toBe(60);
    expect(payload.exp! - payload.iat!).toBe(60);
    expect(payload).not.toHaveProperty('roles');
  });

  it('accepts a token it did not issue itself when it is well-formed and signed with the same secret', async () => {
    const tokens = await setUp();

    await expect(tokens.verify(await forged({ sub: userId, sid: sessionId }))).resolves.toEqual({
      userId,
      sessionId,
    });
  });

  it('refuses a token signed with another secret', async () => {
    const tokens = await setUp();
    const other = await setUp(gatewayEnv.parse({ JWT_SECRET: 'y'.repeat(32), JWT_TTL_SECONDS: '60' }));

    await expect(tokens.verify(await other.issue({ userId, sessionId }))).resolves.toBeUndefined();
  });

  it('refuses an expired token', async () => {
    const tokens = await setUp();

    const expired = await forged({ sub: userId, sid: sessionId }, { exp: nowSeconds() - 1 });

    await expect(tokens.verify(expired)).resolves.toBeUndefined();
  });

  it('refuses a token once it expires, though it was valid (and its check remembered) a moment before', async () => {
    const { tokens, advance } = await setUpWithClock();
    const token = await tokens.issue({ userId, sessionId });

    await expect(tokens.verify(token)).resolves.toEqual({ userId, sessionId });
    advance(59_000);
    await expect(tokens.verify(token)).resolves.toEqual({ userId, sessionId });
    advance(1_000);
    await expect(tokens.verify(token)).resolves.toBeUndefined();
  });

  it('issues and checks tokens on its clock, not the machine time', async () => {
    const start = new Date('2031-05-01T12:00:00Z');
    const { tokens, advance } = await setUpWithClock(undefined, start);
    advance(3_600_000);

    const token = await tokens.issue({ userId, sessionId });

    expect(decodeJwt(token).iat).toBe(start.getTime() / 1000 + 3_600);
    await expect(tokens.verify(token)).resolves.toEqual({ userId, sessionId });
  });

  it('refuses a token without `exp`, which would otherwise never expire', async () => {
    const tokens = await setUp();

    const eternal = await forged({ sub: userId, sid: sessionId }, { exp: null });

    expect(decodeJwt(eternal)).not.toHaveProperty('exp');
    await expect(tokens.verify(eternal)).resolves.toBeUndefined();
  });

  it.each([
    ['without `sid`', { sub: userId }],
    ['without `sub`', { sid: sessionId }],
    ['whose ids are not UUIDs', { sub: 'admin', sid: sessionId }],
  ])('refuses a token %s', async (_, claims) => {
    const tokens = await setUp();

    await expect(tokens.verify(await forged(claims))).resolves.toBeUndefined();
  });

  it('refuses a token from another issuer', async () => {
    const tokens = await setUp();
    const foreign = await new SignJWT({ sub: userId, sid: sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('someone-else')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key(SECRET));

    await expect(tokens.verify(foreign)).resolves.toBeUndefined();
  });

  it('refuses an unsigned token (alg none)', async () => {
    const tokens = await setUp();
    const unsigned = new UnsecuredJWT({ sub: userId, sid: sessionId })
      .setIssuer('echoloop')
      .setIssuedAt()
      .setExpirationTime('60s')
      .encode();

    await expect(tokens.verify(unsigned)).resolves.toBeUndefined();
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const tokens = await setUp();
    const [header, payload, signature] = (await tokens.issue({ userId, sessionId })).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const tampered = Buffer.from(JSON.stringify({ ...claims, sub: randomUUID() })).toString('base64url');

    await expect(tokens.verify(`${header}.${tampered}.${signature}`)).resolves.toBeUndefined();
  });

  it.each(['', 'garbage', 'a.b.c', 'Bearer x.y.z'])('refuses garbage (%j)', async (garbage) => {
    const tokens = await setUp();

    await expect(tokens.verify(garbage)).resolves.toBeUndefined();
  });
});

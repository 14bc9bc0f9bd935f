import { buildStopStrings, cutAtFirstStop, MAX_STOP_STRINGS } from './stop-strings';

describe('buildStopStrings', () => {
  it('stops at a line opened by the user, a generic user label or the character', () => {
    expect(buildStopStrings({ userName: 'Alex', characterName: 'Mira' })).toEqual([
      '\nAlex:',
      '\nYou:',
      '\nUser:',
      '\nMira:',
    ]);
  });

  it("keeps the checkpoint's own stop strings first, without duplicates", () => {
    expect(
      buildStopStrings({ userName: 'You', characterName: 'Mira', checkpointStop: ['<|im_end|>', '\nMira:'] }),
    ).toEqual(['<|im_end|>', '\nMira:', '\nYou:', '\nUser:']);
  });

  it('writes names as one line without surrounding spaces or a trailing colon', () => {
    expect(buildStopStrings({ userName: '  Jo\n Ann: ', characterName: ' ' })).toEqual([
      '\nJo Ann:',
      '\nYou:',
      '\nUser:',
    ]);
  });

  it('caps the count, never dropping one of the checkpoint', () => {
    const checkpointStop = Array.from({ length: MAX_STOP_STRINGS }, (_, i) => `<${i}>`);
    const stops = buildStopStrings({ userName: 'Alex', characterName: 'Mira', checkpointStop });
    expect(stops).toEqual(checkpointStop);
  });
});

describe('cutAtFirstStop', () => {
  it('keeps what comes before the stop string that completes first', () => {
    expect(cutAtFirstStop('Sure.\nAlex: I am the user now', ['\nAlex:'])).toBe('Sure.');
    expect(cutAtFirstStop('abcd', ['abcd', 'bc'])).toBe('a');
    expect(cutAtFirstStop('no stop here', ['\nYou:'])).toBe('no stop here');
  });
});

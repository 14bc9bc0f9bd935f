import { importCard, parseCardJson, writeCardToCharx } from '@echoloop/character-cards';
import { CharacterEntity } from '@echoloop/persistence';
import { cardTextChunk, IEND, rawPng, realWorldImageChunks } from '@echoloop/testing';
import { BadRequestException, NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { CharacterAssetsRepository } from './character-assets.repository';
import { CharactersService } from './characters.service';

const card = parseCardJson({
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: {
    name: 'Kaito',
    assets: [{ type: 'icon', uri: 'embeded://assets/icon/main.png', name: 'main', ext: 'png' }],
  },
});
const { head, idats, tail } = realWorldImageChunks();
const picture = rawPng([...head, ...idats, ...tail, IEND]);
const pngCard = rawPng([...head, cardTextChunk('ccv3', card), ...idats, ...tail, IEND]);
const webp = Uint8Array.of(...Buffer.from('RIFF'), 4, 0, 0, 0, ...Buffer.from('WEBP'));

describe('CharactersService and the files a card comes with', () => {
  const stored = Object.assign(new CharacterEntity(), { id: 'c1', name: 'Kaito', spec: card.spec, card });
  const characters = {
    create: jest.fn((fields: Partial<CharacterEntity>) => Object.assign(new CharacterEntity(), fields)),
    findOneBy: jest.fn(),
  };
  const assets = {
    create: jest.fn(),
    replace: jest.fn(),
    findAvatar: jest.fn(),
    readData: jest.fn(),
    archiveFiles: jest.fn(),
  };
  let service: CharactersService;

  beforeEach(async () => {
    jest.clearAllMocks();
    characters.findOneBy.mockImplementation(async ({ id }: { id: string }) => (id === 'c1' ? stored : null));
    assets.create.mockImplementation(async (character: CharacterEntity) => character);
    assets.replace.mockImplementation(async (id: string) => (id === 'c1' ? stored : null));
    const moduleRef = await Test.createTestingModule({
      providers: [
        CharactersService,
        { provide: getRepositoryToken(CharacterEntity), useValue: characters },
        { provide: CharacterAssetsRepository, useValue: assets },
      ],
    }).compile();
    service = moduleRef.get(CharactersService);
  });

  it("stores a PNG card's image, without the card, as its avatar", async () => {
    await service.importFile(pngCard, 'kaito.png', 'u1');
    expect(assets.create).toHaveBeenCalledWith(expect.objectContaining({ name: 'Kaito', createdBy: 'u1' }), [
      { path: null, isAvatar: true, contentType: 'image/png', data: expect.any(Uint8Array) },
    ]);
    const [[, [image]]] = assets.create.mock.calls;
    expect(Buffer.from(image.data).equals(picture)).toBe(true);
  });

  it("stores every CHARX file with a type read from its bytes, the card's main icon as the avatar", async () => {
    const charx = writeCardToCharx(card, {
      'assets/icon/main.png': picture,
      'assets/bg.webp': webp,
      'module.json': Buffer.from('<html>'),
    });
    await service.importFile(charx, 'kaito.charx', null);
    const [[, files]] = assets.create.mock.calls;
    expect(
      files.map(({ path, isAvatar, contentType }: Record<string, unknown>) => [path, isAvatar, contentType]),
    ).toEqual(
      expect.arrayContaining([
        ['assets/icon/main.png', true, 'image/png'],
        ['assets/bg.webp', false, 'image/webp'],
        ['module.json', false, 'application/octet-stream'],
      ]),
    );
  });

  it('keeps the stored picture when a JSON card replaces the card, and replaces it for a PNG', async () => {
    await service.replaceFile('c1', Buffer.from(JSON.stringify(card)), 'kaito.json');
    expect(assets.replace).toHaveBeenLastCalledWith(
      'c1',
      expect.objectContaining({ name: 'Kaito' }),
      undefined,
    );
    await service.replaceFile('c1', pngCard, 'kaito.png');
    expect(assets.replace).toHaveBeenLastCalledWith('c1', expect.objectContaining({ name: 'Kaito' }), [
      expect.objectContaining({ path: null, isAvatar: true }),
    ]);
  });

  it('answers 404 when the character to replace is gone', async () => {
    const gone = service.replaceFile('c2', Buffer.from(JSON.stringify(card)), 'kaito.json');
    await expect(gone).rejects.toBeInstanceOf(NotFoundException);
  });

  it('stores nothing for a file that is not a card', async () => {
    await expect(service.importFile(picture, 'plain.png', null)).rejects.toBeInstanceOf(BadRequestException);
    expect(assets.create).not.toHaveBeenCalled();
  });

  it('tells a character without a picture from one that does not exist', async () => {
    assets.findAvatar.mockResolvedValue(null);
    const noAvatar = await service.avatar('c1').catch((error: unknown) => error);
    expect((noAvatar as NotFoundException).getResponse()).toMatchObject({ error: { code: 'no_avatar' } });
    const unknown = await service.avatar('c2').catch((error: unknown) => error);
    expect((unknown as NotFoundException).getResponse()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('writes a PNG export into a PNG avatar, and into the plain image when the avatar is another type', async () => {
    assets.findAvatar.mockResolvedValue({
      id: 'a1',
      path: null,
      contentType: 'image/png',
      sha256: 'x',
      size: 1,
    });
    assets.readData.mockResolvedValue(Buffer.from(picture));
    const overPicture = importCard((await service.export('c1', 'png')).body);
    expect(Buffer.from(overPicture.image ?? []).equals(picture)).toBe(true);

    assets.findAvatar.mockResolvedValue({
      id: 'a2',
      path: 'x.webp',
      contentType: 'image/webp',
      sha256: 'y',
      size: 1,
    });
    const plain = importCard((await service.export('c1', 'png')).body);
    expect(Buffer.from(plain.image ?? []).equals(picture)).toBe(false);
    expect(plain.card).toEqual(card);
  });
});

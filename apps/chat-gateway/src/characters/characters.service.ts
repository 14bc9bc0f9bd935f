import {
  type CardAssets,
  type CharacterCard,
  cardToJson,
  characterCardSchema,
  importCard,
  type ImportedCard,
  parseCardJson,
  sniffImageType,
  writeCardToCharx,
  writeCardToPng,
} from '@echoloop/character-cards';
import { CharacterEntity, PG_ERROR, pgErrorCode } from '@echoloop/persistence';
import { assertStorableText } from '@echoloop/platform';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { rethrowAsHttp } from './card-errors';
import {
  CharacterAssetsRepository,
  type NewCharacterAsset,
  type StoredAssetInfo,
} from './character-assets.repository';

export type ExportFormat = 'json' | 'png' | 'charx';

const notFound = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Character not found' } });

/**
 * Characters are stored as the whole card (lossless); name and spec are copied out for listing. The files a card
 * came with (a PNG's image, a CHARX's assets) are kept beside it, so exports give them back.
 */
@Injectable()
export class CharactersService {
  constructor(
    @InjectRepository(CharacterEntity) private readonly characters: Repository<CharacterEntity>,
    private readonly assets: CharacterAssetsRepository,
  ) {}

  list(): Promise<CharacterEntity[]> {
    return this.characters.find({ order: { createdAt: 'ASC' }, take: 500 });
  }

  async get(id: string): Promise<CharacterEntity> {
    const character = await this.characters.findOneBy({ id });
    if (!character) throw notFound();
    return character;
  }

  /** From a JSON body: a V1, V2 or V3 card object. */
  create(body: unknown, createdBy: string | null): Promise<CharacterEntity> {
    return this.save(
      this.parse(() => parseCardJson(body as object)),
      createdBy,
    );
  }

  /** From an uploaded file: PNG (chara/ccv3 chunks), JSON or CHARX, with the picture and assets it carries. */
  async importFile(bytes: Uint8Array, filename: string, createdBy: string | null): Promise<CharacterEntity> {
    const imported = this.read(bytes, filename);
    const character = this.characters.create({ ...columnsOf(imported.card), createdBy });
    return this.assets.create(character, filesOf(imported) ?? []);
  }

  /**
   * Replaces a character's card with an uploaded file, keeping its id and conversations. A PNG or CHARX brings
   * its own picture and assets, replacing the stored ones; a JSON file has none, so the stored ones stay.
   */
  async replaceFile(id: string, bytes: Uint8Array, filename: string): Promise<CharacterEntity> {
    const imported = this.read(bytes, filename);
    const replaced = await this.assets.replace(id, columnsOf(imported.card), filesOf(imported));
    if (!replaced) throw notFound();
    return replaced;
  }

  /** The character's picture: a PNG card's image or a CHARX card's main icon. */
  async avatar(id: string): Promise<StoredAssetInfo> {
    const avatar = await this.assets.findAvatar(id);
    if (avatar) return avatar;
    await this.get(id);
    throw new NotFoundException({ error: { code: 'no_avatar', message: 'This character has no picture' } });
  }

  /** A file of the character's CHARX archive, by its path there. */
  async asset(id: string, path: string): Promise<StoredAssetInfo> {
    const asset = await this.assets.findFile(id, path);
    if (asset) return asset;
    await this.get(id);
    throw new NotFoundException({
      error: { code: 'no_such_asset', message: 'This character has no such file' },
    });
  }

  async assetData(asset: StoredAssetInfo): Promise<Buffer> {
    const data = await this.assets.readData(asset.id);
    // Replaced or deleted between the two reads: the caller asks again and gets the new state.
    if (!data)
      throw new ConflictException({ error: { code: 'asset_changed', message: 'The file just changed' } });
    return data;
  }

  /** Merges `data` fields into the card; the result must still be a valid card. */
  async update(id: string, patch: { data?: Record<string, unknown> }): Promise<CharacterEntity> {
    const character = await this.get(id);
    const current = characterCardSchema.parse(character.card);
    const card = this.parse(() => parseCardJson({ ...current, data: { ...current.data, ...patch.data } }));
    character.card = card as unknown as Record<string, unknown>;
    character.name = card.data.name;
    return this.characters.save(character);
  }

  async export(
    id: string,
    format: ExportFormat,
  ): Promise<{ body: Buffer; contentType: string; filename: string }> {
    const character = await this.get(id);
    const card = characterCardSchema.parse(character.card);
    const base = character.name.replace(/[^\w.-]+/g, '_') || 'character';
    switch (format) {
      case 'png':
        return {
          body: Buffer.from(writeCardToPng(card, await this.pngPicture(id))),
          contentType: 'image/png',
          filename: `${base}.png`,
        };
      case 'charx':
        return {
          body: Buffer.from(writeCardToCharx(card, ...(await this.charxFiles(id)))),
          contentType: 'application/zip',
          filename: `${base}.charx`,
        };
      default:
        return {
          body: Buffer.from(cardToJson(card)),
          contentType: 'application/json',
          filename: `${base}.json`,
        };
    }
  }

  async remove(id: string): Promise<void> {
    try {
      const result = await this.characters.delete({ id });
      if (!result.affected) throw notFound();
    } catch (error) {
      if (pgErrorCode(error) !== PG_ERROR.foreignKeyViolation) throw error;
      throw new ConflictException({
        error: { code: 'character_in_use', message: 'Conversations still use this character' },
      });
    }
  }

  /** The picture to write a PNG card into: the avatar when it is a PNG, else none (a plain image is used). */
  private async pngPicture(id: string): Promise<Uint8Array | undefined> {
    const avatar = await this.assets.findAvatar(id);
    if (avatar?.contentType !== 'image/png') return undefined;
    return (await this.assets.readData(avatar.id)) ?? undefined;
  }

  /** A CHARX card's files as they came; a PNG card's image becomes the main icon. */
  private async charxFiles(id: string): Promise<[CardAssets, Uint8Array?]> {
    const files = await this.assets.archiveFiles(id);
    if (Object.keys(files).length > 0) return [files];
    const avatar = await this.assets.findAvatar(id);
    if (avatar?.path !== null || avatar.contentType !== 'image/png') return [files];
    return [files, (await this.assets.readData(avatar.id)) ?? undefined];
  }

  private read(bytes: Uint8Array, filename: string): ImportedCard {
    try {
      const imported = importCard(bytes, filename);
      assertStorableText(imported.card, ['card']);
      return imported;
    } catch (error) {
      rethrowAsHttp(error);
    }
  }

  private parse(read: () => CharacterCard): CharacterCard {
    try {
      return assertStorableText(read(), ['card']);
    } catch (error) {
      rethrowAsHttp(error);
    }
  }

  private save(card: CharacterCard, createdBy: string | null): Promise<CharacterEntity> {
    return this.characters.save(this.characters.create({ ...columnsOf(card), createdBy }));
  }
}

const columnsOf = (card: CharacterCard) => ({
  name: card.data.name,
  spec: card.spec,
  card: card as unknown as Record<string, unknown>,
});

/** The files to store with an imported card; undefined for a JSON card, which carries none. */
function filesOf(imported: ImportedCard): NewCharacterAsset[] | undefined {
  if (imported.image) {
    return [{ path: null, isAvatar: true, contentType: 'image/png', data: imported.image }];
  }
  if (!imported.assets) return undefined;
  return Object.entries(imported.assets).map(([path, data]) => ({
    path,
    isAvatar: path === imported.mainIcon,
    contentType: sniffImageType(data) ?? 'application/octet-stream',
    data,
  }));
}

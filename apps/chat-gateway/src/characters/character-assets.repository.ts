import { type CardAssets } from '@echoloop/character-cards';
import { CharacterAssetEntity, CharacterEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { type DataSource, type EntityManager, IsNull, Not } from 'typeorm';

/** A file that came with a card, before it is stored: `path` is null for a PNG card's own image. */
export interface NewCharacterAsset {
  path: string | null;
  isAvatar: boolean;
  contentType: string;
  data: Uint8Array;
}

export type StoredAssetInfo = Pick<CharacterAssetEntity, 'id' | 'path' | 'contentType' | 'sha256' | 'size'>;

/** Characters with the files their cards came with (images, CHARX assets), written together or not at all. */
@Injectable()
export class CharacterAssetsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** A new character with its files, in one transaction. */
  create(character: CharacterEntity, assets: readonly NewCharacterAsset[]): Promise<CharacterEntity> {
    return this.db.transaction(async (manager) => {
      const saved = await manager.save(CharacterEntity, character);
      await insertAssets(manager, saved.id, assets);
      return saved;
    });
  }

  /**
   * A new card for an existing character; when `assets` is given they become its only files. The row is locked
   * first, so concurrent replacements take turns; null when the character is gone.
   */
  replace(
    id: string,
    columns: Pick<CharacterEntity, 'name' | 'spec' | 'card'>,
    assets?: readonly NewCharacterAsset[],
  ): Promise<CharacterEntity | null> {
    return this.db.transaction(async (manager) => {
      const character = await manager.findOne(CharacterEntity, {
        where: { id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!character) return null;
      const saved = await manager.save(CharacterEntity, Object.assign(character, columns));
      if (assets) {
        await manager.delete(CharacterAssetEntity, { characterId: id });
        await insertAssets(manager, id, assets);
      }
      return saved;
    });
  }

  /** The avatar's type, size and hash, without its bytes: enough to answer a conditional request. */
  findAvatar(characterId: string): Promise<StoredAssetInfo | null> {
    return this.db.getRepository(CharacterAssetEntity).findOne({
      where: { characterId, isAvatar: true },
      select: { id: true, path: true, contentType: true, sha256: true, size: true },
    });
  }

  findFile(characterId: string, path: string): Promise<StoredAssetInfo | null> {
    return this.db.getRepository(CharacterAssetEntity).findOne({
      where: { characterId, path },
      select: { id: true, path: true, contentType: true, sha256: true, size: true },
    });
  }

  async readData(assetId: string): Promise<Buffer | null> {
    const asset = await this.db
      .getRepository(CharacterAssetEntity)
      .findOne({ where: { id: assetId }, select: { id: true, data: true } });
    return asset?.data ?? null;
  }

  /** The CHARX files of a character by their archive path (a PNG card's image has none, so is not one). */
  async archiveFiles(characterId: string): Promise<CardAssets> {
    const files = await this.db.getRepository(CharacterAssetEntity).find({
      where: { characterId, path: Not(IsNull()) },
      select: { id: true, path: true, data: true },
      order: { path: 'ASC' },
    });
    return Object.fromEntries(files.map((file) => [file.path, new Uint8Array(file.data)]));
  }
}

async function insertAssets(
  manager: EntityManager,
  characterId: string,
  assets: readonly NewCharacterAsset[],
): Promise<void> {
  if (assets.length === 0) return;
  await manager.insert(
    CharacterAssetEntity,
    assets.map((asset) => ({
      characterId,
      path: asset.path,
      isAvatar: asset.isAvatar,
      contentType: asset.contentType,
      sha256: createHash('sha256').update(asset.data).digest('hex'),
      size: asset.data.length,
      data: Buffer.from(asset.data),
    })),
  );
}

import {
  type CharacterCard,
  cardToJson,
  characterCardSchema,
  importCard,
  parseCardJson,
  writeCardToCharx,
  writeCardToPng,
} from '@echoloop/character-cards';
import { CharacterEntity, PG_ERROR, pgErrorCode } from '@echoloop/persistence';
import { assertStorableText } from '@echoloop/platform';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { rethrowAsHttp } from './card-errors';

export type ExportFormat = 'json' | 'png' | 'charx';

const notFound = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Character not found' } });

/** Characters are stored as the whole card (lossless); name and spec are copied out for listing. */
@Injectable()
export class CharactersService {
  constructor(@InjectRepository(CharacterEntity) private readonly characters: Repository<CharacterEntity>) {}

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

  /** From an uploaded file: PNG (chara/ccv3 chunks), JSON or CHARX. */
  importFile(bytes: Uint8Array, filename: string, createdBy: string | null): Promise<CharacterEntity> {
    return this.save(
      this.parse(() => importCard(bytes, filename).card),
      createdBy,
    );
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
        return { body: Buffer.from(writeCardToPng(card)), contentType: 'image/png', filename: `${base}.png` };
      case 'charx':
        return {
          body: Buffer.from(writeCardToCharx(card)),
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

  private parse(read: () => CharacterCard): CharacterCard {
    try {
      return assertStorableText(read(), ['card']);
    } catch (error) {
      rethrowAsHttp(error);
    }
  }

  private save(card: CharacterCard, createdBy: string | null): Promise<CharacterEntity> {
    return this.characters.save(
      this.characters.create({
        name: card.data.name,
        spec: card.spec,
        card: card as unknown as Record<string, unknown>,
        createdBy,
      }),
    );
  }
}

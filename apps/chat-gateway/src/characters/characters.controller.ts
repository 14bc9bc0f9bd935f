import { CharacterEntity } from '@echoloop/persistence';
import { ZodValidationPipe } from '@echoloop/platform';
import {
  Body,
  ConflictException,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { CurrentPrincipal, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { characterCardSchema, type CharacterCard } from './character-card';

const FOREIGN_KEY_VIOLATION = '23503';

const notFound = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Character not found' } });

const view = (c: CharacterEntity) => ({
  id: c.id,
  name: c.name,
  spec: c.spec,
  card: c.card,
  createdAt: c.createdAt,
});

@Controller('v1/characters')
export class CharactersController {
  constructor(@InjectRepository(CharacterEntity) private readonly characters: Repository<CharacterEntity>) {}

  @Get()
  async list() {
    const rows = await this.characters.find({ order: { createdAt: 'ASC' }, take: 500 });
    return { items: rows.map(view) };
  }

  @Get(':id')
  async get(@Param('id', ParseUUIDPipe) id: string) {
    const character = await this.characters.findOneBy({ id });
    if (!character) throw notFound();
    return view(character);
  }

  /** Creates a character from a Character Card V2/V3 JSON object (admins only). */
  @Post()
  @Roles('admin')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(characterCardSchema)) card: CharacterCard,
  ) {
    const saved = await this.characters.save(
      this.characters.create({ name: card.data.name, spec: card.spec, card, createdBy: principal.userId }),
    );
    return view(saved);
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(204)
  async remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    try {
      const result = await this.characters.delete({ id });
      if (!result.affected) throw notFound();
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code !== FOREIGN_KEY_VIOLATION)
        throw error;
      throw new ConflictException({
        error: { code: 'character_in_use', message: 'Conversations still use this character' },
      });
    }
  }
}

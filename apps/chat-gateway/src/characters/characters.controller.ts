import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import type { CharacterEntity } from '@echoloop/persistence';
import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Query,
  Req,
  Res,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { CurrentPrincipal, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import type { StoredAssetInfo } from './character-assets.repository';
import { characterListResponse, characterResponse } from './character.responses';
import { CharactersService, type ExportFormat } from './characters.service';

const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

const exportQuery = z.object({ format: z.enum(['json', 'png', 'charx']).default('json') }).strict();
const assetQuery = z.object({ path: z.string().min(1).max(1024) }).strict();
const patchBody = z.object({ data: z.record(z.string(), z.unknown()) }).strict();

const view = (c: CharacterEntity) => ({
  id: c.id,
  name: c.name,
  spec: c.spec,
  card: c.card,
  createdAt: c.createdAt,
});

interface UploadedCardFile {
  buffer: Buffer;
  originalname: string;
}

@Controller('v1/characters')
export class CharactersController {
  constructor(private readonly characters: CharactersService) {}

  @Get()
  @ApiDoc({ summary: 'Every character', response: characterListResponse })
  async list() {
    return { items: (await this.characters.list()).map(view) };
  }

  @Get(':id')
  @ApiDoc({ summary: 'One character with its card', response: characterResponse })
  async get(@Param('id', ParseUUIDPipe) id: string) {
    return view(await this.characters.get(id));
  }

  /** A Character Card V1/V2/V3 as a JSON body (admins). */
  @Post()
  @Roles('admin')
  @ApiDoc({
    summary: 'Creates a character from a Character Card V1/V2/V3 sent as JSON',
    response: characterResponse,
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() card: unknown) {
    return view(await this.characters.create(card, creatorOf(principal)));
  }

  /** A card file as multipart field `file`: .png (chara/ccv3), .json or .charx (admins). */
  @Post('import')
  @Roles('admin')
  @ApiDoc({
    summary: 'Imports a card file (multipart field `file`): .png (chara/ccv3), .json or .charx',
    response: characterResponse,
  })
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } }))
  async import(@CurrentPrincipal() principal: Principal, @UploadedFile() file: UploadedCardFile | undefined) {
    const { buffer, originalname } = requireFile(file);
    return view(await this.characters.importFile(buffer, originalname, creatorOf(principal)));
  }

  /** Replaces the card with a file, as `import` takes it; a PNG or CHARX also replaces the picture (admins). */
  @Post(':id/import')
  @ApiDoc({ summary: 'Replaces the card with a file; a PNG or CHARX also replaces the picture' })
  @Roles('admin')
  @HttpCode(200)
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } }))
  async replace(@Param('id', ParseUUIDPipe) id: string, @UploadedFile() file: UploadedCardFile | undefined) {
    const { buffer, originalname } = requireFile(file);
    return view(await this.characters.replaceFile(id, buffer, originalname));
  }

  /** The character's picture (a PNG card's image without the card, or a CHARX's main icon); 304 when unchanged. */
  @Get(':id/avatar')
  @ApiDoc({ summary: "The character's picture, with an ETag", responseType: 'image/*' })
  async avatar(
    @Param('id', ParseUUIDPipe) id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const avatar = await this.characters.avatar(id);
    await sendStored(req, res, avatar, () => this.characters.assetData(avatar));
  }

  /** A file of the character's CHARX archive by its path there (`assets/icon/images/main.png`). */
  @Get(':id/assets')
  @ApiDoc({ summary: "A file of the character's CHARX archive, with an ETag", responseType: '*/*' })
  async asset(
    @Param('id', ParseUUIDPipe) id: string,
    @Query(new ZodValidationPipe(assetQuery)) query: z.infer<typeof assetQuery>,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const asset = await this.characters.asset(id, query.path);
    await sendStored(req, res, asset, () => this.characters.assetData(asset));
  }

  @Patch(':id')
  @Roles('admin')
  @ApiDoc({ summary: "Replaces fields of the card's `data`", response: characterResponse })
  async update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body(new ZodValidationPipe(patchBody)) patch: z.infer<typeof patchBody>,
  ) {
    return view(await this.characters.update(id, patch));
  }

  @Get(':id/export')
  @ApiDoc({ summary: 'Exports the card as JSON, PNG or CHARX', responseType: 'application/octet-stream' })
  async export(
    @Param('id', ParseUUIDPipe) id: string,
    @Query(new ZodValidationPipe(exportQuery)) query: { format: ExportFormat },
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.characters.export(id, query.format);
    res
      .status(200)
      .setHeader('Content-Type', file.contentType)
      .setHeader('Content-Disposition', `attachment; filename="${file.filename}"`)
      .send(file.body);
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(204)
  remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.characters.remove(id);
  }
}

/**
 * Behind auth, so `private`; revalidated on each use, so a replaced picture shows at once (a 304 is cheap). A
 * file that is not an image is only ever downloaded, never rendered.
 */
async function sendStored(req: Request, res: Response, file: StoredAssetInfo, read: () => Promise<Buffer>) {
  res
    .setHeader('ETag', `"${file.sha256}"`)
    .setHeader('Cache-Control', 'private, no-cache')
    .setHeader('X-Content-Type-Options', 'nosniff');
  if (!file.contentType.startsWith('image/')) res.setHeader('Content-Disposition', 'attachment');
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res
    .status(200)
    .setHeader('Content-Type', file.contentType)
    .send(await read());
}

function requireFile(file: UploadedCardFile | undefined): UploadedCardFile {
  if (file) return file;
  throw new BadRequestException({
    error: { code: 'file_missing', message: 'Send the card as multipart field "file"' },
  });
}

/** A character made with an API key has no human creator. */
const creatorOf = (principal: Principal): string | null =>
  principal.kind === 'user' ? principal.userId : null;

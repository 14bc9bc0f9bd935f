import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { CharacterEntity } from './character.entity';

/**
 * A file that came with a character's card: the image of a PNG card (no `path`), or a file of a CHARX archive
 * at its `path` there. At most one per character is its avatar (the PNG's image, or the CHARX's main icon).
 */
@Entity({ name: 'character_assets' })
// NULL paths are distinct in a unique index; the only one a character has is its PNG image, its avatar.
@Index('character_assets_path', ['characterId', 'path'], { unique: true })
@Index('character_assets_avatar', ['characterId'], { unique: true, where: 'is_avatar' })
export class CharacterAssetEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'character_id', type: 'uuid' })
  characterId!: string;

  @ManyToOne(() => CharacterEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'character_id' })
  character?: CharacterEntity;

  /** Where the file lies in a CHARX archive (`assets/icon/images/main.png`); null for a PNG card's image. */
  @Column({ type: 'text', nullable: true })
  path!: string | null;

  @Column({ name: 'is_avatar', type: 'boolean' })
  isAvatar!: boolean;

  /** Sniffed from the bytes, never taken from the upload. */
  @Column({ name: 'content_type', type: 'text' })
  contentType!: string;

  /** Hex SHA-256 of `data`: the avatar's ETag. */
  @Column({ type: 'text' })
  sha256!: string;

  @Column({ type: 'integer' })
  size!: number;

  /** Not loaded unless asked for: listing and ETag checks need only the columns above. */
  @Column({ type: 'bytea', select: false })
  data!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

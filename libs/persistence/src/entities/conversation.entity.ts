import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { CharacterEntity } from './character.entity';
import { UserEntity } from './user.entity';

@Entity({ name: 'conversations' })
@Index('conversations_user_recent_idx', ['userId', 'updatedAt'])
// The retention sweep deletes the oldest conversations first, in batches.
@Index('conversations_updated_idx', ['updatedAt'])
/** An OpenAI-compatible client's conversations, found again by the history it resends. */
@Index('conversations_client_thread_idx', ['userId', 'clientThreadKey'], {
  where: 'client_thread_key IS NOT NULL',
})
export class ConversationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ name: 'character_id', type: 'uuid' })
  characterId!: string;

  @ManyToOne(() => CharacterEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'character_id' })
  character?: CharacterEntity;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  /** Rolling summary of the turns that no longer fit the model's context, so long conversations keep memory. */
  @Column({ type: 'text', nullable: true })
  summary!: string | null;

  /** The newest message the summary covers (by creation time). */
  @Column({ name: 'summary_through', type: 'timestamptz', nullable: true })
  summaryThrough!: Date | null;

  /** The director's latest decision (every 5 user turns); its note guides the reply to the next user turn. */
  @Column({ type: 'jsonb', nullable: true })
  director!: DirectorNote | null;

  /** The OpenAI-compatible client that holds this conversation (its key's name); null for Echoloop's own apps. */
  @Column({ name: 'client_name', type: 'text', nullable: true })
  clientName!: string | null;

  /** That client's own system prompt, which replaces the character's definition in the prompt. */
  @Column({ name: 'client_system_prompt', type: 'text', nullable: true })
  clientSystemPrompt!: string | null;

  /** A digest of how the client's history begins (model, system prompt, first message): finds it when resent. */
  @Column({ name: 'client_thread_key', type: 'text', nullable: true })
  clientThreadKey!: string | null;

  /** Whether that client's key asked for replies adapted to the user's inferred personality. */
  @Column({ name: 'client_persona_guidance', type: 'boolean', default: false })
  clientPersonaGuidance!: boolean;

  /** The speaker names that client gives its messages (OpenAI's `name`), used in place of the user's and card's. */
  @Column({ name: 'client_speakers', type: 'jsonb', nullable: true })
  clientSpeakers!: ClientSpeakers | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** The names a client's messages carry: who the user is, and who the character is, in its transcript. */
export interface ClientSpeakers {
  user?: string;
  character?: string;
}

/** What the director decided after user turn `turn` of a conversation. */
export interface DirectorNote {
  turn: number;
  decision: 'keep' | 'deepen' | 'new-topic';
  note: string;
  decidedAt: string;
}

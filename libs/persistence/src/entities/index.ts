import { CharacterEntity } from './character.entity';
import { ConversationEntity } from './conversation.entity';
import { MessageEntity } from './message.entity';
import { OutboxEntity } from './outbox.entity';
import { UserEntity } from './user.entity';

export { CharacterEntity, type CardSpec } from './character.entity';
export { ConversationEntity } from './conversation.entity';
export { MessageEntity, type MessageRole, type MessageStatus } from './message.entity';
export { OutboxEntity } from './outbox.entity';
export { ROLES, UserEntity, type Role } from './user.entity';

export const ENTITIES = [UserEntity, CharacterEntity, ConversationEntity, MessageEntity, OutboxEntity];

export { dateTime, DATE_TIME_PROBLEMS } from './date-time';
export { SignedCursors } from './signed-cursors';

/**
 * The repeat engine: reads a task's `repeat` text and works out its next due date. Pure: no I/O,
 * no clock (the caller passes `now`), and every computation is capped (see docs/repeat.md).
 */
export type { NextInput, NextResult, RepeatSpec } from './types.js';
export { parseRepeat } from './parse.js';
export { nextOccurrence } from './engine.js';

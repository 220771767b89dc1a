// Every limit of the service in one place: validation, the roller, the OpenAPI document and the
// README all read these numbers, so a limit is changed here and nowhere else.

export const LIMITS = {
  /** Characters in a formula (query, body, batch item). */
  formulaMinLength: 1,
  formulaMaxLength: 200,
  /** Items in RollRequest.bonuses, and characters in a string bonus. */
  bonusesPerRoll: 20,
  bonusMinLength: 1,
  bonusMaxLength: 200,
  /** Items in RollRequest.tags, and characters in each tag. */
  tagsPerRoll: 20,
  tagMinLength: 1,
  tagMaxLength: 32,
  /** Rolls in one POST /v1/roll/batch. */
  rollsPerBatchMin: 1,
  rollsPerBatch: 20,
  /** Default dice per roll and per batch (both configurable: DICE_PER_ROLL, DICE_PER_BATCH). */
  dicePerRoll: 1000,
  dicePerBatch: 1000,
  /** Default request body size in bytes (BODY_LIMIT_BYTES). */
  bodyBytes: 8192,
  /** Default rate limit: requests per window per address (RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS). */
  rateLimitMax: 60,
  rateLimitWindowMs: 60_000,
  /** Dice terms: count, sides, multiplier, flat integers. */
  diceCountMax: 1000,
  sidesMax: 2 ** 32,
  multiplierMax: 1000,
  flatMaxAbs: 1_000_000,
  /** Custom dice `d{...}`: faces listed, and each face's absolute value. */
  facesMax: 100,
  faceMaxAbs: 1_000_000,
  /** Second edition: terms (dice terms and numbers) per formula or bonus, items per group, bracket depth. */
  termsMax: 100,
  groupItemsMax: 20,
  nestingMax: 16,
  /** A die explodes at most this many times in a chain, and is rerolled at most this many times. */
  explodeCap: 100,
  rerollCap: 100,
  /** `u`: a die is rerolled at most this many times while it repeats an earlier die's value. */
  uniqueCap: 100,
  /** Powers: the largest exponent, and the largest absolute value a power may reach. */
  exponentMax: 20,
  powerMaxAbs: 1e100,
} as const;

/** A tag: the trailing word a formula may end with. */
export const TAG_PATTERN = /^[a-z]+$/;

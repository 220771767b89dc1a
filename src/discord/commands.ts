// The application's commands as Discord stores them (docs/discord.md): what `fairdice discord
// register` puts to Discord's API, and the names the interactions endpoint answers to. Each is a
// chat-input (slash) command installable both ways, to a server and to a user, and usable in
// servers, in DMs with the app and in other DMs and group DMs. The buttons of a roll message
// carry their formula in their custom id (below).
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  InteractionContextType,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import { LIMITS } from '../limits.js';

export const COMMAND = { roll: 'roll', odds: 'odds', table: 'table' } as const;
export const TABLE_SUBCOMMAND = {
  start: 'start',
  log: 'log',
  verify: 'verify',
  report: 'report',
  reveal: 'reveal',
} as const;
export const OPTION = {
  formula: 'formula',
  private: 'private',
  note: 'note',
  target: 'target',
  versus: 'versus',
  sealed: 'sealed',
  seq: 'seq',
  token: 'token',
} as const;

/** Characters of a roll's note (the length a signed note will have). */
export const NOTE_MAX_LENGTH = LIMITS.noteMaxLength;

const everywhere = {
  integration_types: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
  contexts: [
    InteractionContextType.Guild,
    InteractionContextType.BotDM,
    InteractionContextType.PrivateChannel,
  ],
};

const formulaOption = (description: string, required: boolean) =>
  ({
    type: ApplicationCommandOptionType.String,
    name: OPTION.formula,
    description,
    required,
    autocomplete: true,
    min_length: LIMITS.formulaMinLength,
    max_length: LIMITS.formulaMaxLength,
  }) as const;

/** Every command, in the form `PUT /applications/{application.id}/commands` takes. */
export const COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.roll,
    description: 'Roll dice: every die, the total, and a signed receipt anyone can check',
    ...everywhere,
    options: [
      formulaOption('What to roll: 1d20+5, 4d6kh3, 2d20kh1, 8d10>=8, 4dF', true),
      {
        type: ApplicationCommandOptionType.Boolean,
        name: OPTION.private,
        description: 'Only you see the answer',
      },
      {
        type: ApplicationCommandOptionType.String,
        name: OPTION.note,
        description: 'What the roll is for, shown with it',
        min_length: 1,
        max_length: NOTE_MAX_LENGTH,
      },
      {
        type: ApplicationCommandOptionType.Boolean,
        name: OPTION.sealed,
        description: "A secret roll at this channel's table: only you see it until you reveal it",
      },
    ],
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.odds,
    description: 'The exact odds of a formula, with a chart',
    ...everywhere,
    options: [
      formulaOption('The formula: 3d6, 4d6kh3, 2d20kh1+5', true),
      {
        type: ApplicationCommandOptionType.Integer,
        name: OPTION.target,
        description: 'A total to reach: the chance of rolling at least it',
        min_value: -LIMITS.flatMaxAbs,
        max_value: LIMITS.flatMaxAbs,
      },
      {
        ...formulaOption('A second formula to compare with: who rolls higher', false),
        name: OPTION.versus,
      },
    ],
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.table,
    description: "This channel's fairdice table: every roll here signed and logged",
    ...everywhere,
    options: [
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: TABLE_SUBCOMMAND.start,
        description: 'Start a table here: from now on every /roll in this channel is signed and logged',
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: TABLE_SUBCOMMAND.log,
        description: "The last rolls of this channel's table",
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: TABLE_SUBCOMMAND.verify,
        description: "Check this channel's table: every signature, nothing missing or altered",
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: TABLE_SUBCOMMAND.report,
        description: "How lucky the rolls at this channel's table were",
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: TABLE_SUBCOMMAND.reveal,
        description: 'Reveal your sealed roll to the channel',
        options: [
          {
            type: ApplicationCommandOptionType.Integer,
            name: OPTION.seq,
            description: 'Its table entry number (#)',
            required: true,
            min_value: 1,
          },
          {
            type: ApplicationCommandOptionType.String,
            name: OPTION.token,
            description: 'The reveal token your sealed roll gave you',
            required: true,
            min_length: 1,
            max_length: 200,
          },
        ],
      },
    ],
  },
];

/** The most characters a component's custom id may have (Discord's limit). */
export const CUSTOM_ID_MAX_LENGTH = 100;

/** What a button of a roll message does, with the formula it carries. */
export type ButtonAction =
  | { action: 'roll'; formula: string; private: boolean }
  | { action: 'odds'; formula: string }
  | { action: 'reveal'; seq: number; token: string };

const ROLL_PUBLIC = 'roll:-:';
const ROLL_PRIVATE = 'roll:p:';
const ODDS = 'odds:';
/** `reveal:<seq>:<token>`: only on the ephemeral answer of a sealed roll, which its roller alone sees. */
const REVEAL = /^reveal:(\d{1,9}):([A-Za-z0-9_-]{1,80})$/;

/** The custom id of a button, or undefined when what it carries is too long to fit in one. */
export function customIdOf(button: ButtonAction): string | undefined {
  const id =
    button.action === 'reveal'
      ? `reveal:${button.seq}:${button.token}`
      : `${button.action === 'odds' ? ODDS : button.private ? ROLL_PRIVATE : ROLL_PUBLIC}${button.formula}`;
  return id.length <= CUSTOM_ID_MAX_LENGTH ? id : undefined;
}

/** The button a custom id names, or undefined when it is none of ours. */
export function buttonOf(customId: string): ButtonAction | undefined {
  const reveal = REVEAL.exec(customId);
  if (reveal !== null) return { action: 'reveal', seq: Number(reveal[1]), token: reveal[2]! };
  for (const [prefix, button] of [
    [ROLL_PUBLIC, (formula: string) => ({ action: 'roll', formula, private: false }) as const],
    [ROLL_PRIVATE, (formula: string) => ({ action: 'roll', formula, private: true }) as const],
    [ODDS, (formula: string) => ({ action: 'odds', formula }) as const],
  ] as const) {
    if (customId.startsWith(prefix) && customId.length > prefix.length)
      return button(customId.slice(prefix.length));
  }
  return undefined;
}

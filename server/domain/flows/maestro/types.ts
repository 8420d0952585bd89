// The shapes shared by the importer's modules, kept apart so that none of them has to import the
// public entry (index.ts) and the module graph stays acyclic.
import type { components } from '../../../../openapi/generated/types.js';

export type Step = components['schemas']['Step'];
export type Direction = components['schemas']['Direction'];
export type StepBlock = components['schemas']['StepBlock'];

/** One thing that stops a flow from being run as written. line 0 means the file as a whole. */
export interface MaestroProblem {
  file: string;
  line: number;
  command: string;
  option?: string;
  message: string;
}

export interface MaestroPlan {
  file: string;
  appId: string | null;
  name: string | null;
  steps: Step[];
  /** control flow over ranges of steps (runFlow when, repeat, retry, onFlowComplete), as DoRequest.blocks */
  blocks: StepBlock[];
  problems: MaestroProblem[];
  /** what simfleet reads differently from Maestro, or ignores, without refusing the flow */
  notes: MaestroProblem[];
  /** the files runFlow and retry brought in, as paths `read` was given */
  included: string[];
  env: Record<string, string>;
}

/** The YAML as the importer sees it: every scalar a string (so `${N}` works anywhere), every node with its line. */
export type YNode = YScalar | YSeq | YMap;
export interface YScalar {
  kind: 'scalar';
  value: string;
  line: number;
}
export interface YSeq {
  kind: 'seq';
  items: YNode[];
  line: number;
}
export interface YMap {
  kind: 'map';
  entries: { key: string; value: YNode; line: number }[];
  line: number;
}

/** A command as written: its name, its line, and its argument (null for a bare `- back`). */
export interface Command {
  name: string;
  line: number;
  arg: YNode | null;
}

/** Where a command sits, with the variables in force there; problems are collected through `report`. */
export interface CommandContext {
  file: string;
  line: number;
  command: string;
  env: Record<string, string>;
  /** the main flow's appId, which a `launchApp: {appId}` must agree with */
  appId: string | null;
  report(message: string, option?: string, line?: number): void;
  /** a remark that does not stop the flow (an option accepted and ignored, a limit applied) */
  note(message: string, option?: string, line?: number): void;
}

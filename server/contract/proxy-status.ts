import { z } from "zod";
import { SettingsSchema } from "./proxy-fields.js";
import { ParamsSchema } from "./proxy-views.js";

/** What `GET /status` and the probation routes answer. */

/** A port of the running core that another program holds: the core takes nothing there. */
export const ListenProblemSchema = z.object({
  code: z.literal("core.port_in_use"),
  port: z.number(),
  /** As the core names it; "*" for every address. */
  address: z.string(),
  listener: z.enum(["mixed", "dns"]),
  protocol: z.enum(["tcp", "udp"]),
});
export type ListenProblem = z.output<typeof ListenProblemSchema>;

/** One of the service's last warnings and errors. */
export const RecentProblemSchema = z.object({
  /** RFC 3339. */
  time: z.string(),
  level: z.enum(["warn", "error"]),
  /** Names the problem; the console says it in the reader's language. */
  code: z.string().optional(),
  /** The values its sentence names (with `reason_code`, the error behind it). */
  params: ParamsSchema.optional(),
  /** The service's English sentence (its log file's words). */
  message: z.string(),
  requestId: z.string().nullable(),
});
export type RecentProblem = z.output<typeof RecentProblemSchema>;

/** A settings change waiting for `POST /system/confirm`. */
export const ProbationDeadlineSchema = z.object({
  /** Unix seconds. */
  deadline: z.number(),
  remainingSeconds: z.number(),
});

/** The sentence of the last rollback of an unconfirmed change. */
export const ProbationNoticeSchema = z.object({
  code: z.enum(["probation.rolled_back", "probation.rolled_back_restart"]),
  message: z.string(),
});

/** `GET /system/probation`. */
export const ProbationStateSchema = z.object({
  probation: ProbationDeadlineSchema.nullable(),
  notice: ProbationNoticeSchema.nullable(),
});
export type ProbationState = z.output<typeof ProbationStateSchema>;

/** `GET /status`: the core, the counts and the settings in one answer. */
export const StatusSchema = z.object({
  coreOnline: z.boolean(),
  /**
   * Whether the service means the core to run: started (by the console, or with the service)
   * and not stopped since. Offline while started is a problem; offline while not is a choice.
   */
  coreStarted: z.boolean(),
  coreInstalled: z.boolean(),
  version: z.string(),
  uptimeSeconds: z.number(),
  nodeCount: z.number(),
  subscriptionCount: z.number(),
  settings: SettingsSchema,
  configError: z.string(),
  /** Stable code of `configError` ("" when there is none), e.g. core.port_in_use. */
  configErrorCode: z.string(),
  /** A settings change waiting for confirmation, or null. */
  probation: ProbationDeadlineSchema.nullable(),
  /** Port of the core's controller on 127.0.0.1. */
  controllerPort: z.number(),
  /** Ports of the running core that another program holds. */
  listenProblems: z.array(ListenProblemSchema),
  /** Geodata files a start needs that are neither in the core's home nor shipped. */
  geodataMissing: z.array(z.string()),
  actualNode: z.string(),
  selectedAvailable: z.boolean(),
  tunActive: z.boolean(),
  /** The service's last warnings and errors, newest first. */
  recentErrors: z.array(RecentProblemSchema),
  /** Why the core cannot be asked (absent while it answers). */
  coreError: z.string().optional(),
  /** Stable code of `coreError`: core.unreachable, core.timeout, core.port_in_use, ... */
  coreErrorCode: z.string().optional(),
});
export type Status = z.output<typeof StatusSchema>;

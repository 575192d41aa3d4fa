import type { ProxyProblemCode } from "../../../server/problem-codes.js";
import type { Lang } from "../../shared/lang.js";
import {
  because,
  reasonOr,
  COMMON_PROBLEMS_EN,
  COMMON_PROBLEMS_ZH,
  problemText,
  type ProblemTables,
  type RecordedProblem,
} from "../../shared/recent-problems-words.js";
import { briefServiceText } from "./brief-errors.js";

const exitedEn = (p: { exit_code?: string | number; signal?: string | number }): string => {
  const how =
    p.exit_code !== undefined
      ? ` (exit code ${p.exit_code})`
      : p.signal !== undefined
        ? ` (signal ${p.signal})`
        : "";
  return `The proxy core stopped unexpectedly${how}.`;
};

const exitedZh = (p: { exit_code?: string | number; signal?: string | number }): string => {
  const how =
    p.exit_code !== undefined
      ? `（退出码 ${p.exit_code}）`
      : p.signal !== undefined
        ? `（信号 ${p.signal}）`
        : "";
  return `代理内核意外退出${how}。`;
};

/** A start, restart or stop that failed, by the action the console asked for. */
const CONTROL_EN: Record<string, string> = {
  start: "Starting the proxy core failed",
  restart: "Restarting the proxy core failed",
  stop: "Stopping the proxy core failed",
};
const CONTROL_ZH: Record<string, string> = {
  start: "启动代理内核失败",
  restart: "重启代理内核失败",
  stop: "停止代理内核失败",
};

const wrongEn = (n: string | number) => (n === 1 ? "a wrong password" : `${n} wrong passwords`);

/** The proxy service's recorded problems, by code, in both languages. */
export const PROXY_PROBLEM_TABLES: ProblemTables<ProxyProblemCode> = {
  en: {
    ...COMMON_PROBLEMS_EN,
    "core.did_not_start": (p) =>
      because("The proxy core did not start with the service", p.reason, "en"),
    "core.close_failed": () => "Stopping the proxy core as the service closed failed.",
    "core.exited": exitedEn,
    "core.auto_restart_failed": () => "Starting the proxy core again after it stopped failed.",
    "core.restart_partial": (p) =>
      because("The proxy core was started again but did not come back fully", p.reason, "en"),
    "core.log_error": () =>
      "The proxy core wrote an error in its own log; the service's log file keeps its words.",
    "install.restore_failed": () =>
      "An installed core did not start, and the previous core put back did not start either.",
    "probation.rollback_failed": (p) =>
      because("Undoing an unconfirmed settings change did not fully succeed", p.reason, "en"),
    "subscription.scheduled_refresh_failed": (p) =>
      because(`The scheduled refresh of subscription “${p.name}” failed`, p.reason, "en"),
    "subscription.manual_refresh_failed": (p) =>
      because(`Refreshing subscription “${p.name}” failed`, p.reason, "en"),
    "control.failed": (p) =>
      because(CONTROL_EN[String(p.action)] ?? "Controlling the proxy core failed", p.reason, "en"),
    "install.failed": (p) =>
      reasonOr("Installing the latest proxy core failed; the core in use was kept", p.reason, "en"),
    "install.rollback_failed": (p) =>
      reasonOr("Going back to the previous proxy core failed", p.reason, "en"),
    "geodata.update_failed": (p) =>
      reasonOr(
        "The rule data (geodata) could not be updated; the previous files are kept",
        p.reason,
        "en",
      ),
    "updates.check_failed": (p) =>
      reasonOr("Checking for a newer proxy core failed", p.reason, "en"),
    "auth.sign_in_blocked": (p) =>
      `Sign-in to this console was blocked on one device for ${p.minutes} min after ${wrongEn(p.attempts)}.`,
    "probation.undone_at_deadline": () =>
      "A settings change was not confirmed in time, so the previous settings were restored.",
    "probation.undone_at_start": () =>
      "A settings change was still unconfirmed when the service restarted, so the previous settings were restored.",
    "devices.apply_failed": (p) =>
      because("A device's address changed, but its policy could not be applied", p.reason, "en"),
    "devices.write_failed": () =>
      "The devices' traffic could not be written to the database; it is kept and tried again.",
    "devices.vendors_failed": () => "The makers of new devices could not be looked up.",
  },
  "zh-CN": {
    ...COMMON_PROBLEMS_ZH,
    "core.did_not_start": (p) => because("代理内核未能随服务启动", p.reason, "zh-CN"),
    "core.close_failed": () => "服务关闭时停止代理内核失败。",
    "core.exited": exitedZh,
    "core.auto_restart_failed": () => "代理内核停止后，自动重新启动失败。",
    "core.restart_partial": (p) => because("代理内核已重新启动，但没有完全恢复", p.reason, "zh-CN"),
    "core.log_error": () => "代理内核在自己的日志中报告了一个错误；原文记录在服务的日志文件中。",
    "install.restore_failed": () => "新安装的内核没有启动，换回的上一个内核也没有启动。",
    "probation.rollback_failed": (p) =>
      because("撤销未确认的设置更改时没有完全成功", p.reason, "zh-CN"),
    "subscription.scheduled_refresh_failed": (p) =>
      because(`订阅“${p.name}”的定时刷新失败`, p.reason, "zh-CN"),
    "subscription.manual_refresh_failed": (p) =>
      because(`刷新订阅“${p.name}”失败`, p.reason, "zh-CN"),
    "control.failed": (p) =>
      because(CONTROL_ZH[String(p.action)] ?? "控制代理内核失败", p.reason, "zh-CN"),
    "install.failed": (p) =>
      reasonOr("安装最新的代理内核失败，正在使用的内核保持不变", p.reason, "zh-CN"),
    "install.rollback_failed": (p) => reasonOr("换回上一个代理内核失败", p.reason, "zh-CN"),
    "geodata.update_failed": (p) =>
      reasonOr("规则数据（地理数据）未能更新，之前的文件保持不变", p.reason, "zh-CN"),
    "updates.check_failed": (p) => reasonOr("检查代理内核的新版本失败", p.reason, "zh-CN"),
    "auth.sign_in_blocked": (p) =>
      `一台设备连续输错 ${p.attempts} 次密码，该设备登录控制台已被暂停 ${p.minutes} 分钟。`,
    "probation.undone_at_deadline": () => "设置更改未及时确认，已恢复之前的设置。",
    "probation.undone_at_start": () => "服务重新启动时设置更改仍未确认，已恢复之前的设置。",
    "devices.apply_failed": (p) => because("设备的地址已变化，但其策略未能应用", p.reason, "zh-CN"),
    "devices.write_failed": () => "设备流量未能写入数据库；数据仍保留，稍后会重试。",
    "devices.vendors_failed": () => "未能查询新设备的制造商。",
  },
};

/**
 * A problem the proxy service recorded, in the reader's language. Its reason is said without
 * the core's own words (the list never carries them; the Logs page does).
 */
export function proxyProblemText(problem: RecordedProblem, lang: Lang): string {
  return problemText(PROXY_PROBLEM_TABLES, lang, problem, (code, params) =>
    briefServiceText({ code, params }, lang),
  );
}

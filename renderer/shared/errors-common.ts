import type { CommonErrorCode, ParamsOf } from "../../server/http/error-codes.js";
import type { ErrorTable } from "./error-table.js";
import { plural } from "./i18n.js";

type Invalid = ParamsOf<"request.invalid">;

/** What is wrong with a field, by zod's kind of problem, what was measured and the bound. */
function invalidEn(p: Invalid): string {
  const limit = p.limit ?? "?";
  const more = p.origin === "string" ? " characters" : p.origin === "array" ? " items" : "";
  switch (p.issue) {
    case "invalid_type":
      return "has the wrong type";
    case "too_small":
      return p.origin === "number" ? `must be at least ${limit}` : `needs at least ${limit}${more}`;
    case "too_big":
      return p.origin === "number" ? `must be at most ${limit}` : `allows at most ${limit}${more}`;
    case "invalid_format":
      return "is not in the right format";
    case "invalid_value":
      return "is not one of the accepted values";
    default:
      return "is not valid";
  }
}

function invalidZh(p: Invalid): string {
  const limit = p.limit ?? "?";
  const unit = p.origin === "string" ? " 个字符" : p.origin === "array" ? " 项" : "";
  switch (p.issue) {
    case "invalid_type":
      return "类型不正确";
    case "too_small":
      return p.origin === "number" ? `不能小于 ${limit}` : `至少需要 ${limit}${unit}`;
    case "too_big":
      return p.origin === "number" ? `不能大于 ${limit}` : `最多只能有 ${limit}${unit}`;
    case "invalid_format":
      return "格式不正确";
    case "invalid_value":
      return "不是可接受的值";
    default:
      return "无效";
  }
}

/** The framework's answers and the shared request checks, said the same way on every page. */
export const COMMON_EN: ErrorTable<CommonErrorCode> = {
  "request.no_endpoint": () => "The service has no such address.",
  "request.no_page": () => "There is no such page.",
  "request.wrong_host": () =>
    "The service does not answer on this address; open it through one of its own addresses.",
  "request.bad_json": () => "The request could not be read (it is not valid JSON).",
  "request.too_large": () => "The request is too large.",
  "request.unreadable": () => "The request could not be read.",
  "request.bad_encoding": () => "The address is not correctly encoded.",
  "request.not_object": () => "The request is not in the expected form.",
  "request.busy": () => "The service is busy reading other requests; try again in a few seconds.",
  "request.body_timeout": () =>
    "The request did not arrive in time; check the connection and try again.",
  "request.invalid": (p) =>
    p.field ? `The value of ${p.field} ${invalidEn(p)}.` : `The request ${invalidEn(p)}.`,
  "request.unknown_field": (p) => `The request has a field the service does not know: ${p.field}.`,
  "request.not_integer": (p) => `${p.field} must be a whole number.`,
  "request.page": () => "The page number must be 1 or more.",
  "request.page_size": (p) =>
    plural("en", p.max, { one: "A page shows 1 item.", other: "A page shows 1 to {count} items." }),
  "auth.cross_site": () => "Requests from other sites are not allowed.",
  "auth.origin": () => "This page's address may not make changes here.",
  "server.disk_full": () => "The gateway's disk is full; try again once space has been freed.",
  "server.internal": () =>
    "Something went wrong in the service. Try again; if it keeps happening, tell the administrator.",
};

export const COMMON_ZH: ErrorTable<CommonErrorCode> = {
  "request.no_endpoint": () => "服务没有这个接口地址。",
  "request.no_page": () => "没有这个页面。",
  "request.wrong_host": () => "服务不在这个地址上应答；请通过服务自己的地址打开。",
  "request.bad_json": () => "请求无法读取（不是有效的 JSON）。",
  "request.too_large": () => "请求过大。",
  "request.unreadable": () => "请求无法读取。",
  "request.bad_encoding": () => "地址的编码不正确。",
  "request.not_object": () => "请求的格式不符合要求。",
  "request.busy": () => "服务正忙于读取其他请求；请几秒后重试。",
  "request.body_timeout": () => "请求未能及时送达；请检查网络连接后重试。",
  "request.invalid": (p) =>
    p.field ? `${p.field} 的值${invalidZh(p)}。` : `请求${invalidZh(p)}。`,
  "request.unknown_field": (p) => `请求中有服务不认识的字段：${p.field}。`,
  "request.not_integer": (p) => `${p.field} 必须是整数。`,
  "request.page": () => "页码必须大于或等于 1。",
  "request.page_size": (p) => `每页显示 1 到 ${p.max} 条。`,
  "auth.cross_site": () => "不允许来自其他网站的请求。",
  "auth.origin": () => "此页面的地址无权在这里进行更改。",
  "server.disk_full": () => "网关的磁盘已满；请在释放空间后重试。",
  "server.internal": () => "服务内部出错。请重试；如果一再发生，请告知管理员。",
};

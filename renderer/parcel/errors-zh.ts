import type { ParamsOf, ParcelErrorCode } from "../../server/http/error-codes.js";
import type { ErrorTable } from "../shared/error-table.js";
import { formatBytes } from "../shared/format.js";

const FILE_NAME_REASONS: Record<string, string> = {
  empty: "名称为空",
  encoding: "包含无效的字符编码",
  too_long: "超过 255 字节",
  slash: "包含 / 或 \\",
  control: "包含控制字符",
  invisible: "包含不可见字符或文字方向控制字符",
  dots: "不能是 . 或 ..",
};

function wrongPassword(p: ParamsOf<"pickup.password_wrong">): string {
  const left = Number(p.attempts_left);
  if (left <= 0) return "密码错误，且已用完所有尝试次数：包裹现已锁定。";
  return `密码错误。再错 ${left} 次包裹就会被锁定。`;
}

/** The parcel service's errors in Simplified Chinese, by code. */
export const PARCEL_ZH: ErrorTable<ParcelErrorCode> = {
  "auth.origin_required": () => "浏览器没有说明请求来自哪个页面；请刷新页面后重试。",
  "auth.service_origin": () => "此页面的地址不是服务的地址之一；请从服务的地址打开页面。",
  "auth.bearer_format": () => "管理令牌的格式不正确。",
  "admin.sign_in_required": () => "请先以管理员身份登录。",
  "admin.login_wrong": () => "用户名或密码错误。",
  "admin.login_limit": () => "登录失败次数过多；请稍后再试。",
  "admin.current_password_wrong": () => "当前密码不正确。",
  "admin.password_short": (p) => `新密码至少需要 ${p.min} 个字符。`,
  "admin.password_long": (p) => `新密码最多 ${p.max} 字节。`,
  "owner.credential_required": () => "无法确认此浏览器是包裹的发件人（没有访客身份或管理令牌）。",
  "owner.visitor_required": () => "此浏览器还没有访客身份；请刷新页面。",
  "owner.token_invalid": () => "此管理令牌无效。",
  "owner.token_other": () => "此管理令牌属于另一个包裹。",
  "owner.not_yours": () => "此包裹是从另一个浏览器发送的。",
  "owner.token_needed": () => "此浏览器没有该包裹的密钥，无法再次显示它的取件码。",
  "upload.disabled": () => "管理员已关闭发送功能。",
  "upload.too_many_files": (p) => `一个包裹最多只能包含 ${p.limit} 个文件。`,
  "upload.file_name": (p) =>
    `第 ${p.index} 个文件的名称“${p.name}”不被接受：${FILE_NAME_REASONS[p.reason] ?? "不允许使用"}。`,
  "upload.same_name": (p) =>
    `“${p.first}”和“${p.second}”是写法不同的同一个名称；请给每个文件起不同的名称。`,
  "upload.days": (p) => `包裹最多保存 ${p.max} 天。`,
  "upload.downloads": (p) => `最多允许 ${p.max} 次下载。`,
  "upload.password_required": () => "每个包裹都必须设置密码。",
  "upload.file_too_large": (p) =>
    `${p.name} 超过了单个文件 ${formatBytes(Number(p.limit))} 的上限。`,
  "upload.parcel_too_large": (p) => `包裹总大小超过了 ${formatBytes(Number(p.limit))} 的上限。`,
  "upload.daily_limit": () => "此地址今天的上传额度已用完。",
  "upload.inbox_terms": () =>
    "发送到电脑收件箱的文件不能设置有效期、下载次数或密码：由电脑的主人保管。",
  "storage.file_budget": () =>
    "网关当前没有足够空间：存放的文件数量已达上限。请减少文件数量，或稍后再试。",
  "storage.data_budget": () =>
    "网关当前没有足够空间：存储配额已用完。请减少文件数量或大小，或稍后再试。",
  "storage.disk_space": () =>
    "网关当前没有足够空间：磁盘剩余空间不足。请减少文件数量或大小，或稍后再试。",
  "storage.no_code": () => "暂时没有可用的取件码；请稍后再试。",
  "upload.closed": () => "此包裹已不再接收文件。",
  "upload.busy": () => "此文件正在上传中。",
  "upload.file_removed": () => "此文件在发送过程中已从上传中移除。",
  "upload.too_long": () => "收到的数据多于文件的大小。",
  "upload.length_mismatch": () => "发送的数据与文件大小不符。",
  "upload.cut_off": () => "传输中断；请重新发送该文件。",
  "upload.aborted": () => "传输提前结束；请重新发送该文件。",
  "upload.slow": () => "上传速度过慢，已被停止；请重新发送整个文件。",
  "upload.disk_full": () => "磁盘剩余空间不足，无法保存此文件。",
  "upload.store_failed": () => "文件无法保存。",
  "upload.offset_mismatch": (p) =>
    `服务器已保存此文件的前 ${formatBytes(Number(p.offset))}；请从该位置继续。`,
  "upload.offset_invalid": () => "续传请求没有说明从哪里继续。",
  "upload.content_type": () => "续传的数据必须以 application/offset+octet-stream 发送。",
  "upload.tus_version": (p) =>
    `此服务器使用 tus 1.0.0 续传上传；客户端要求的是 ${p.version} 版本。`,
  "upload.session_ended": () => "此次上传已结束，无法再发送。",
  "upload.not_ready": (p) => `还有 ${p.count} 个文件没有上传完。`,
  "parcel.not_found": () => "没有这个包裹。",
  "parcel.file_not_found": () => "包裹中没有这个文件。",
  "parcel.not_published": () => "只有已发送的包裹才能生成新的取件码。",
  "parcel.not_in_review": () => "只有被锁定的包裹才能重新签发。",
  "upload.last_file": () => "包裹的最后一个文件不能移除：请改为取消上传。",
  "parcel.code_ended": () => "此包裹现在无法取件，因此不显示它的取件码。",
  "parcel.code_not_kept": () =>
    "当前的取件码是在没有该包裹密钥的情况下签发的（包裹被锁定后由管理员重新签发），因此无法在此显示。可以生成新的取件码来查看；当前的取件码随即失效。",
  "parcel.inbox_code": () => "此包裹是发送到电脑收件箱的：只有那台电脑的主人有它的取件码。",
  "inbox.session_required": () =>
    "请重新用收件码打开收件箱：收件箱已关闭、换了新的收件码，或此页面等待太久。",
  "inbox.code_unknown": () =>
    "没有使用此收件码的已打开收件箱：请检查收件码，或请电脑的主人重新打开收件箱。",
  "inbox.password_required": () => "此收件箱需要密码。",
  "inbox.password_wrong": () => "收件箱密码错误。",
  "pickup.code_unknown": () => "没有与此取件码对应的包裹。请检查后重试。",
  "pickup.inbox_code": (p) => `这是收件码：用它可以把文件发送到 ${p.name}。`,
  "pickup.code_first": () => "请先输入取件码。",
  "pickup.code_changed": () => "取件码已更换；请输入新的取件码。",
  "pickup.password_required": () => "此包裹需要密码。",
  "pickup.password_wrong": wrongPassword,
  "pickup.too_many": () => "此地址取件失败的次数过多；请稍后再试。",
  "pickup.service_busy": () => "本服务取件失败的次数过多；请稍后再试。",
  "pickup.checks_busy": () => "很多取件人正在同时核对密码，请稍等片刻再试。",
  "parcel.expired": () => "此包裹已过期。",
  "parcel.exhausted": () => "此包裹的下载次数已用完。",
  "parcel.revoked": () => "发件人已撤回此包裹。",
  "parcel.locked": () => "密码错误次数过多，此包裹已被锁定。请联系发件人；管理员可以解锁。",
  "parcel.gone": () => "此包裹已不存在。",
  "parcel.file_gone": () => "此文件已不可用。",
  "parcel.no_files": () => "此包裹中已没有文件。",
  "download.read_failed": () => "文件无法读取；请重试。",
  "download.damaged": (p) => `${p.name} 的存储副本已损坏，不会被发送；请让发件人重新发送。`,
  "policy.conflict": () => "其中有些设置相互矛盾。",
  "admin.state_filter": () => "无法识别这个状态筛选条件。",
  "admin.action_filter": () => "操作筛选条件的格式应为“范围.动作”。",
  "admin.time_range": () => "时间范围的开始晚于结束。",
  "admin.query_repeated": (p) => `筛选条件 ${p.field} 出现了不止一次。`,
  "admin.query_too_long": (p) => `筛选条件 ${p.field} 过长。`,
};

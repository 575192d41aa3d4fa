import type { ProxyErrorCode } from "../../../server/http/error-codes.js";
import { attempt, type ErrorTable } from "../../shared/error-table.js";
import { formatBytes } from "../../shared/format.js";
import { say } from "../../shared/i18n.js";
import { zh } from "../words.js";
import { ruleInWords } from "../rules/rule-words.js";

const KINDS: Record<string, string> = { subscription: "订阅", rule: "规则", device: "设备" };

/** The proxy service's errors in Simplified Chinese, by code. */
export const PROXY_ZH: ErrorTable<ProxyErrorCode> = {
  "auth.sign_in": () => "请先登录。",
  "auth.csrf": () => "此页面的会话密钥已过期；请刷新页面后重试。",
  "auth.already_set_up": () => "管理员密码已经设置过了。",
  "auth.setup_token": () => "初始化令牌不正确。",
  "auth.not_set_up": () => "控制台尚未初始化。",
  "auth.password_wrong": () => "密码错误。",
  "auth.current_password_wrong": () => "当前密码错误。",
  "auth.login_limit": () => "登录失败次数过多；请稍后再试。",
  "auth.password_short": (p) => `密码太短：至少 ${p.min} 个字符（每个汉字按 3 个计）。`,
  "auth.password_long": (p) =>
    `密码太长：最多 ${p.max} 个字符（每个汉字按 3 个计，即最多 ${Math.floor(Number(p.max) / 3)} 个汉字）。`,
  "subscription.unknown": () => "此订阅已不存在。",
  "subscription.duplicate": (p) => `订阅 ${p.name} 已使用这个地址。`,
  "subscription.limit": (p) => `最多只能保存 ${p.max} 个订阅。`,
  "subscription.url_invalid": () => "订阅地址无效。",
  "subscription.url_scheme": () => "订阅地址必须以 http:// 或 https:// 开头。",
  "subscription.redirect_invalid": () => "订阅服务器把下载转到了一个无效的地址。",
  "subscription.redirect_scheme": () => "订阅服务器把下载转到了一个不是 http 或 https 的地址。",
  "subscription.redirect_no_location": (p) =>
    `订阅服务器返回了 HTTP ${p.status}，但没有给出要跳转的地址。`,
  "subscription.redirects": () => "订阅服务器的跳转次数过多。",
  "subscription.no_answer": () => "订阅服务器没有应答。",
  "subscription.cancelled": () => "订阅下载已取消。",
  "subscription.timeout": (p) => `订阅服务器在 ${p.seconds} 秒内没有应答。`,
  "subscription.dns": () => "无法解析订阅服务器的域名。",
  "subscription.refused": () => "订阅服务器拒绝了连接。",
  "subscription.tls": () => "订阅服务器的证书不受信任。",
  "subscription.closed": () => "下载完成前，订阅服务器关闭了连接。",
  "subscription.unreachable": () => "无法连接订阅服务器。",
  "subscription.fetch_status": (p) => `订阅服务器返回了 HTTP ${p.status}。`,
  "subscription.too_large": (p) => `订阅内容超过了 ${formatBytes(Number(p.limit))}。`,
  "subscription.decompress": () => "订阅内容无法解压。",
  "subscription.format": () => "订阅内容的格式无法识别。",
  "subscription.no_nodes": (p) =>
    Number(p.skipped) > 0
      ? `订阅中没有可用的节点（${p.skipped} 个节点无法使用）。`
      : "订阅中没有节点。",
  "subscription.yaml_invalid": (p) => `订阅的 YAML 无法读取：${p.detail}`,
  "subscription.yaml_depth": (p) =>
    p.limit === undefined
      ? "订阅的 YAML 嵌套太深，无法读取。"
      : `订阅的 YAML 嵌套超过了 ${p.limit} 层。`,
  "subscription.yaml_aliases": (p) =>
    `订阅使用了超过 ${p.limit} 个 YAML 别名；为防止拖慢服务，这么大的订阅会被拒绝。`,
  "subscription.yaml_expansion": (p) =>
    `订阅的 YAML 别名展开后超过 ${p.limit} 个值；为防止拖慢服务，这么大的订阅会被拒绝。`,
  "subscription.yaml_alias_unknown": (p) => `订阅的 YAML 在设置锚点之前就使用了别名 *${p.alias}。`,
  "subscription.yaml_alias_loop": (p) => `订阅的 YAML 锚点 ${p.alias} 中包含指向自身的别名。`,
  "subscription.read_timeout": (p) => `读取订阅超过了 ${p.seconds} 秒，已被停止。`,
  "subscription.read_memory": (p) => `读取此订阅需要超过 ${p.limit} MB 内存，因此没有读取。`,
  "subscription.reader_failed": () => "订阅无法读取；请重试。",
  "subscription.refresh_failed": () => "订阅无法更新。",
  "subscription.both_failed": (p) =>
    `直接下载：${attempt(PROXY_ZH, p, "direct_")} 通过代理内核：${attempt(PROXY_ZH, p, "proxied_")}`,
  "rule.unknown": () => "此规则已不存在。",
  "device.unknown": () => "此设备已不存在（可能已被移除）。",
  "rule.order": () => "新的顺序必须恰好包含每条规则一次；请刷新后重试。",
  "rule.duplicate": (p) =>
    `列表中的第 ${p.position} 条规则已是 ${ruleInWords(p, (k, v) => say("zh-CN", zh[k], v))}，请修改那一条。`,
  "node.unknown": (p) => `无法识别节点 ${p.node}。`,
  "node.unavailable": () => "该节点已不存在，或它所在的订阅已停用。",
  "node.select_refused": (p) => `选择已保存，但内核拒绝了它：${p.detail}`,
  "node.test_needs_core": () => "请先启动代理内核：延迟测试要经过内核，而它现在没有运行。",
  "settings.mixed_port_dns": () => "代理端口必须与 DNS 端口不同。",
  "settings.mixed_port_controller": (p) => `代理端口不能是 ${p.port}：内核的控制端口正在使用它。`,
  "settings.mixed_port_own": (p) => `代理端口不能是 ${p.port}：本控制台正在使用它。`,
  "settings.mixed_port_parcel": (p) => `代理端口不能是 ${p.port}：Gatehouse 的文件传输正在使用它。`,
  "settings.port_in_use": (p) => `端口 ${p.port} 已被其他程序占用；请换一个端口，或停止该程序。`,
  "settings.lan_ip_format": () => "局域网地址必须是 IPv4 地址。",
  "settings.gateway_format": () => "网关必须是 IP 地址。",
  "settings.lan_cidr_format": () => "局域网网段的写法应类似 192.168.1.0/24。",
  "settings.lan_cidr_everything": () => "局域网网段必须是局域网，而不是所有地址。",
  "settings.lan_ip_loopback": () => "局域网地址不能是 127.0.0.1。",
  "settings.lan_ip_needs_cidr": () =>
    "设置局域网地址时，还需要填写局域网网段（局域网设备所在的网络）。",
  "settings.lan_ip_outside": () => "局域网地址必须位于局域网网段之内。",
  "settings.tun_dns_port": () => "开启 TUN 模式时，DNS 端口必须是 53。",
  "settings.tun_needs": () => "TUN 模式需要填写局域网地址、局域网网段、网关和网络接口。",
  "settings.interface_missing": (p) => `本机上不存在网络接口 ${p.interface}。`,
  "settings.interface_address": (p) => `${p.address} 不是网络接口 ${p.interface} 的地址。`,
  "backup.not_backup": () => "该文件不是 Gatehouse 备份。",
  "backup.version": () => "不支持的备份版本：只能恢复第 1 版的备份。",
  "backup.invalid_settings": (p) => `备份中的设置无效：${p.reason}`,
  "backup.invalid_rule": (p) => `备份中的第 ${p.rule} 条规则无效：${p.reason}`,
  "backup.duplicate_id": (p) => `备份中${KINDS[p.kind] ?? p.kind} ${p.id} 出现了两次。`,
  "core.not_installed": () => "尚未安装代理内核：请在“概览”中点击“安装代理内核”。",
  "core.port_in_use": (p) =>
    `端口 ${p.port} 已被其他程序占用，无法在该端口控制代理内核。请停止该程序，或在启动 Gatehouse 时用 --core-controller-port 指定一个空闲端口。`,
  "core.unreachable": () =>
    "代理内核未运行或无法连接。请在“概览”中启动它；如果尚未安装，请先在那里安装。",
  "core.timeout": () => "代理内核没有及时响应。",
  "core.error": () => "代理内核返回了错误。",
  "core.config": () => "代理内核的配置有问题。",
  "core.config_rejected": (p) => `内核拒绝了该配置：${p.detail}`,
  "core.config_load": (p) => `内核没有加载该配置：${p.detail}`,
  "core.apply_failed": (p) => `无法把更改应用到内核：${p.detail}`,
  "core.start_failed": (p) => `无法启动代理内核：${p.detail}`,
  "core.exited_at_start": () => "代理内核刚启动就停止了。",
  "core.restart_failed": (p) => `无法重启代理内核：${p.detail}`,
  "core.stop_failed": (p) => `无法停止代理内核：${p.detail}`,
  "core.logs_ended": () => "代理内核结束了日志流。",
  "stream.limit": (p) =>
    `此次登录已打开 ${p.max} 个实时视图；请关闭控制台的其他窗口或标签页后重试。`,
  "install.busy": () => "代理内核正在安装或回滚中，请等它完成。",
  "install.configured": () =>
    "此 Gatehouse 使用 --core-bin 指定的内核，安装另一个不会有任何改变。不带 --core-bin 启动 Gatehouse，即可由它安装和更新内核。",
  "install.unreachable": () => "内核安装失败：无法连接发布服务器。没有做任何更改。",
  "install.timeout": (p) => `内核安装失败：下载未在 ${p.seconds} 秒内完成。没有做任何更改。`,
  "install.http_status": (p) => `内核安装失败：发布服务器返回了 HTTP ${p.status}。没有做任何更改。`,
  "install.bad_release": () => "内核安装失败：无法读取发布服务器的应答。没有做任何更改。",
  "install.no_asset": (p) => `最新版本中没有适用于本机的内核（${p.asset}）。没有做任何更改。`,
  "install.no_digest": (p) =>
    `发布信息没有给出 ${p.asset} 的 SHA-256 校验值，无法校验，因此没有安装。`,
  "install.digest_mismatch": (p) => `下载的 ${p.asset} 与公布的校验值不符，没有安装。`,
  "install.too_large": (p) => `内核的下载超过了 ${formatBytes(Number(p.limit))}，没有安装。`,
  "install.unreadable": () => "内核的下载无法解压，没有安装。",
  "install.version_mismatch": (p) =>
    `下载的内核无法在本机运行，或其版本不是 ${p.version}，没有安装。`,
  "install.config_rejected": (p) => `新内核未通过当前配置的检查，因此没有安装：${p.detail}`,
  "install.restart_failed": (p) => `新内核没有启动，已换回之前的内核并重新启动：${p.detail}`,
  "install.no_previous": () => "没有可以回退到的上一个内核。",
  "geodata.missing": (p) =>
    `缺少内核的规则数据文件 ${p.file}，因此没有启动内核（否则它会自行下载）。请在“系统”页面使用“更新地理数据”。`,
  "geodata.busy": () => "地理数据正在更新中，请等它完成。",
  "geodata.unreachable": (p) =>
    `更新地理数据失败：无法连接下载服务器获取 ${p.file}。没有做任何更改。`,
  "geodata.http_status": (p) =>
    `更新地理数据失败：下载服务器对 ${p.file} 返回了 HTTP ${p.status}。没有做任何更改。`,
  "geodata.checksum": (p) => `下载的 ${p.file} 与公布的校验值不符，没有使用。没有做任何更改。`,
  "geodata.too_large": (p) => `${p.file} 的下载过大，没有使用。`,
  "geodata.rejected": (p) => `代理内核未接受新的地理数据，仍使用原有文件：${p.detail}`,
  "probation.none": () => "没有等待确认的设置更改。",
  "probation.rolled_back": () => "设置更改未在 60 秒内确认，已恢复之前的设置并重新启动内核。",
  "probation.rolled_back_restart": () => "服务在设置更改被确认之前重新启动，已恢复之前的设置。",
  "updates.unreachable": () => "检查更新失败：无法连接发布服务器。",
  "updates.timeout": () => "检查更新失败：发布服务器没有及时响应。",
  "updates.http_status": (p) => `检查更新失败：发布服务器返回了 HTTP ${p.status}。`,
  "updates.bad_answer": () => "检查更新失败：无法读取发布服务器的回应。",
  "updates.too_large": (p) => `检查更新失败：发布服务器的回应超过 ${p.mib} MiB，不是发布信息。`,
  "connectivity.unknown_site": (p) => `没有名为 ${p.site} 的测试站点。`,
  "connectivity.busy": () => "已有三项连通性测试在进行，请稍后再试。",
};

import type { Dict } from "../i18n.js";

/**
 * Words about the desktop's keychain, shown on the send page and My parcels (small, so those
 * screens do not load the Desktop screen's table).
 */
const en = {
  refusedTitle: "The keychain is not available.",
  refusedBody:
    "The keys that manage your parcels (revoke, new code) are kept only while this window is open; they are never written to disk in plain text.",
  installLinux: "Install and unlock gnome-keyring (or KWallet), then restart Gatehouse.",
  installMac: "Unlock your login keychain in Keychain Access, then restart Gatehouse.",
  installWindows:
    "Windows Credential Manager did not answer: sign in to Windows with your own account, then restart Gatehouse.",
  failedBody:
    "The keychain did not answer just now. The key of this parcel is kept only while this window is open.",
};

const zh: Record<keyof typeof en, string> = {
  refusedTitle: "钥匙串不可用。",
  refusedBody: "管理包裹的密钥（撤销、生成新取件码）只在此窗口打开期间保存，绝不会以明文写入磁盘。",
  installLinux: "请安装并解锁 gnome-keyring（或 KWallet），然后重新启动 Gatehouse。",
  installMac: "请在“钥匙串访问”中解锁登录钥匙串，然后重新启动 Gatehouse。",
  installWindows:
    "Windows 凭据管理器没有响应：请用你自己的账户登录 Windows，然后重新启动 Gatehouse。",
  failedBody: "钥匙串刚才没有响应。此包裹的管理密钥只在此窗口打开期间保存。",
};

export const keychainDict: Dict<keyof typeof en> = { en, "zh-CN": zh };

/**
 * Words of setting the password, signing in and out, and changing the password, in English and Simplified Chinese; renderer/proxy/words.ts merges every
 * area's tables into the console's one.
 */
export const authEn = {
  "auth.setupTitle": "Set up the proxy console",
  "auth.setupIntro":
    "Choose the administrator password. You need the one-time setup token to prove you run this gateway.",
  "auth.token": "Setup token",
  "auth.tokenHint":
    'Printed by npm run serve ("proxy setup token: …") and stored in <data-dir>/proxy/setup-token.',
  "auth.tokenFromDesktop":
    "In the Gatehouse app, the setup token is shown on its Desktop screen (Desktop in the parcel page's top bar).",
  "auth.tokenMissing": "Enter the setup token.",
  "auth.newPassword": "New password",
  "auth.confirm": "Repeat the password",
  "auth.passwordRule":
    "12 to 72 characters. Accented and non-Latin letters count as 2 to 4 each (a Chinese character as 3).",
  "auth.tooShort":
    "The password is too short: at least 12 characters (accented and non-Latin letters count as 2 to 4).",
  "auth.tooLong":
    "The password is too long: at most 72 characters (accented and non-Latin letters count as 2 to 4).",
  "auth.mismatch": "The two passwords differ.",
  "auth.setupButton": "Set password and sign in",
  "auth.loginTitle": "Sign in",
  "auth.password": "Password",
  "auth.passwordMissing": "Enter the password.",
  "auth.loginButton": "Sign in",
  "auth.tooMany": "Too many wrong passwords from this device. Sign-in opens again at {time}.",
  "auth.waitButton": "Wait {time}",
  "auth.expired": "Your session has ended. Sign in again.",
  "auth.loggedOut": "You have signed out.",
  "auth.rememberAsk":
    "Signed in. Keep this password in the keychain, so that the desktop app signs you in to the console by itself from now on?",
  "auth.rememberYes": "Keep it in the keychain",
  "auth.rememberNo": "Not now",
  "auth.rememberFailed": "The keychain did not keep the password. You are still signed in.",
  "auth.currentPassword": "Current password",
  "auth.changeButton": "Change password",
  "auth.passwordChanged": "Password changed. Other sessions were signed out.",
} as const;

export const authZh: Record<keyof typeof authEn, string> = {
  "auth.setupTitle": "初始化代理控制台",
  "auth.setupIntro": "请设置管理员密码。需要一次性的初始化令牌来证明你是这台网关的管理者。",
  "auth.token": "初始化令牌",
  "auth.tokenHint":
    "由 npm run serve 打印（“proxy setup token: …”），并保存在 <data-dir>/proxy/setup-token。",
  "auth.tokenFromDesktop":
    "在 Gatehouse 应用中，初始化令牌显示在其“桌面设置”页面上（包裹页面顶栏中的“桌面设置”）。",
  "auth.tokenMissing": "请输入初始化令牌。",
  "auth.newPassword": "新密码",
  "auth.confirm": "再次输入密码",
  "auth.passwordRule": "12 到 72 个字符。每个汉字按 3 个字符计（即最多 24 个汉字）。",
  "auth.tooShort": "密码太短：至少 12 个字符（每个汉字按 3 个计）。",
  "auth.tooLong": "密码太长：最多 72 个字符（每个汉字按 3 个计，即最多 24 个汉字）。",
  "auth.mismatch": "两次输入的密码不一致。",
  "auth.setupButton": "设置密码并登录",
  "auth.loginTitle": "登录",
  "auth.password": "密码",
  "auth.passwordMissing": "请输入密码。",
  "auth.loginButton": "登录",
  "auth.tooMany": "此设备输错密码的次数过多。将于 {time} 重新开放登录。",
  "auth.waitButton": "请等待 {time}",
  "auth.expired": "会话已结束，请重新登录。",
  "auth.loggedOut": "你已退出登录。",
  "auth.rememberAsk":
    "已登录。要把这个密码保存在钥匙串中吗？保存后，桌面应用会自动为你登录控制台。",
  "auth.rememberYes": "保存到钥匙串",
  "auth.rememberNo": "暂不保存",
  "auth.rememberFailed": "钥匙串未能保存密码。你仍保持登录。",
  "auth.currentPassword": "当前密码",
  "auth.changeButton": "修改密码",
  "auth.passwordChanged": "密码已修改，其他会话已退出。",
};

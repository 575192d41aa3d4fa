import type { Dict } from "./i18n.js";

const en = {
  title: "Gatehouse",
  tagline: "Send files across your home network",
  navigation: "Main",
  send: "Send",
  mine: "My parcels",
  pickup: "Pick up",
  inbox: "Send to a computer",
  admin: "Admin",
  desktop: "Desktop",
  language: "Language",
  theme: "Theme",
  themeSystem: "System theme",
  themeLight: "Light",
  themeDark: "Dark",
  skip: "Skip to content",
  loading: "Loading…",
  loadFailed: "This part of the page could not be loaded. Check the connection and try again.",
  retry: "Try again",
};

const zh: Record<keyof typeof en, string> = {
  title: "Gatehouse",
  tagline: "在家庭网络内快速传文件",
  navigation: "主导航",
  send: "发送",
  mine: "我的包裹",
  pickup: "取件",
  inbox: "发送到电脑",
  admin: "管理",
  desktop: "桌面设置",
  language: "语言",
  theme: "主题",
  themeSystem: "跟随系统",
  themeLight: "浅色",
  themeDark: "深色",
  skip: "跳到正文",
  loading: "加载中…",
  loadFailed: "页面的这一部分未能加载。请检查网络后重试。",
  retry: "重试",
};

export type ShellKey = keyof typeof en;
export const shellDict: Dict<ShellKey> = { en, "zh-CN": zh };

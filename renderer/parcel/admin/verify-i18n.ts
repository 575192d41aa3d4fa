import type { Dict } from "../i18n.js";
import type { Table } from "../../shared/i18n.js";

/** The words of the Overview's card about the check of the stored files. */
const en = {
  title: "Stored files check",
  intro:
    "Reads every stored file again and checks that it still holds exactly what was uploaded. It runs by itself once a week; a damaged copy is taken out of service and never sent to anyone.",
  run: "Verify now",
  running: "Checking…",
  progress: {
    one: "Checked {checked} of 1 stored file",
    other: "Checked {checked} of {n} stored files",
    by: "n",
  },
  progressLabel: "Progress of the check",
  never: "No check has run yet.",
  last: "Last check finished",
  checkedLabel: "Stored files checked",
  tookLabel: "Time taken",
  interrupted:
    "The last check, started {time}, stopped before its end because the service stopped; it checked {checked} of {total}. Start it again with Verify now.",
  next: "Next automatic check: {time}",
  allGood: "Every stored file was what was uploaded.",
  foundHead: { one: "1 damaged copy found", other: "{n} damaged copies found" },
  someFile: "a file no parcel holds any more",
  colon: ": ",
  moreNames: "{names} and others",
  "reason.size": "its stored copy did not have the size it was uploaded with.",
  "reason.content": "its stored copy no longer matches what was uploaded.",
  "reason.missing": "its stored copy was missing from the disk.",
  "reason.unreadable": "its stored copy could not be read from the disk.",
  "outcome.orphan": "Taken out of service: it is never sent. No parcel holds it any more.",
  "outcome.quarantined": {
    one: "Taken out of service: it is never sent, so 1 parcel cannot hand out this file until someone uploads it again.",
    other:
      "Taken out of service: it is never sent, so {n} parcels cannot hand out this file until someone uploads it again.",
  },
  "outcome.stored_again":
    "Taken out of service, then uploaded again since: the parcels that hold it work again.",
  "outcome.removed": "Taken out of service; every parcel that held it has ended since.",
  findParcels: "Show these parcels",
  "took.short": "less than a second",
  "took.s": { one: "1 second", other: "{n} seconds" },
  "took.m": { one: "1 minute", other: "{n} minutes" },
  "took.h": "{h} h {m} min",
};

type VerifyKey = keyof typeof en;

const zh: Table<VerifyKey> = {
  title: "存储文件校验",
  intro:
    "重新读取每个已存储的文件，检查其内容是否仍与上传时完全一致。每周自动运行一次；损坏的副本会被停用，绝不会再发送给任何人。",
  run: "立即校验",
  running: "正在校验…",
  progress: "已校验 {checked} / {n} 个存储文件",
  progressLabel: "校验进度",
  never: "还没有运行过校验。",
  last: "上次校验完成于",
  checkedLabel: "已校验的存储文件",
  tookLabel: "用时",
  interrupted:
    "上次校验（开始于 {time}）因服务停止而未完成，已校验 {checked} / {total}。请点击“立即校验”重新开始。",
  next: "下次自动校验：{time}",
  allGood: "所有存储文件都与上传时一致。",
  foundHead: "发现 {n} 个损坏的副本",
  someFile: "已不属于任何包裹的文件",
  colon: "：",
  moreNames: "{names} 等",
  "reason.size": "其存储副本的大小与上传时不符。",
  "reason.content": "其存储副本已与上传的内容不一致。",
  "reason.missing": "其存储副本已从磁盘上丢失。",
  "reason.unreadable": "无法从磁盘读取其存储副本。",
  "outcome.orphan": "已停用：不会再发送。已没有包裹包含它。",
  "outcome.quarantined": "已停用：不会再发送，因此 {n} 个包裹在有人重新上传该文件之前无法提供它。",
  "outcome.stored_again": "已停用，之后又有人重新上传：包含它的包裹已恢复正常。",
  "outcome.removed": "已停用；包含它的包裹此后均已结束。",
  findParcels: "查看这些包裹",
  "took.short": "不到 1 秒",
  "took.s": "{n} 秒",
  "took.m": "{n} 分钟",
  "took.h": "{h} 小时 {m} 分钟",
};

export const verifyDict: Dict<VerifyKey> = { en, "zh-CN": zh };

import { Menu, nativeImage, Tray, type MenuItemConstructorOptions } from "electron";
import type { TrayAction, TrayItem } from "../tray/model.js";

/** Turns the tray model (main/tray/model.ts) into Electron's tray menu; nothing is decided here. */
export class AppTray {
  private readonly tray: Tray;

  /** `iconFile`: the platform's icon (main/platform.ts `trayIconName`). */
  constructor(
    iconFile: string,
    private readonly run: (action: TrayAction) => void,
    onClick: () => void,
  ) {
    // On macOS a name ending in "Template" makes it a template image, @2x taken beside it.
    const image = nativeImage.createFromPath(iconFile);
    this.tray = new Tray(image);
    this.tray.setToolTip("Gatehouse");
    this.tray.on("click", onClick);
  }

  private item(i: TrayItem): MenuItemConstructorOptions {
    if (i.type === "separator") return { type: "separator", id: i.id };
    if (i.type === "submenu")
      return { id: i.id, label: i.label, submenu: (i.submenu ?? []).map((s) => this.item(s)) };
    const action = i.action;
    return {
      id: i.id,
      label: i.label,
      enabled: i.enabled,
      click: action ? () => this.run(action) : undefined,
    };
  }

  set(items: TrayItem[], tooltip: string): void {
    this.tray.setContextMenu(Menu.buildFromTemplate(items.map((i) => this.item(i))));
    this.tray.setToolTip(tooltip);
  }

  destroy(): void {
    this.tray.destroy();
  }
}

import { mount } from "../shared/boundary.js";
import { DesktopPage } from "./page.js";
import "../shared/base.css";
import "../parcel/styles.css";

// The Desktop screen, served by the app itself at app://gatehouse/desktop.html and never by
// the services: the only page that may use the privileged half of the desktop bridge.
mount(DesktopPage);

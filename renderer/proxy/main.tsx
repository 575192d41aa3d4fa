import { mount } from "../shared/boundary.js";
import { App } from "./shell/app.js";
import "../shared/base.css";
import "./parts/styles-parts.css";
import "./parts/styles-screens.css";
import "./nodes/styles-latency.css";
import "./connections/styles-conn-details.css";
import "./shell/styles-phone-menu.css";
import "./parts/styles-phone-tables.css";

mount(App);

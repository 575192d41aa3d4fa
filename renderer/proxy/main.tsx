import { mount } from "../shared/boundary.js";
import { App } from "./app.js";
import "../shared/base.css";
import "./styles-parts.css";
import "./styles-screens.css";
import "./styles-latency.css";
import "./styles-conn-details.css";
import "./styles-phone-menu.css";
import "./styles-phone-tables.css";

mount(App);

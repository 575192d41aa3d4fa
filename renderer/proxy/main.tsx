import { mount } from "../shared/boundary.js";
import { App } from "./app.js";
import "../shared/base.css";
import "./styles-parts.css";
import "./styles-screens.css";

mount(App);

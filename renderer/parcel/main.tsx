import { mount } from "../shared/boundary.js";
import { App } from "./app.js";
import "../shared/base.css";
import "./styles.css";

mount(App);

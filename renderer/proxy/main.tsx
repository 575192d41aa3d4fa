import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Boundary } from "../shared/boundary.js";
import { App } from "./app.js";
import "../shared/base.css";
import "./styles-parts.css";
import "./styles-screens.css";

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <Boundary>
        <App />
      </Boundary>
    </StrictMode>,
  );
}

import { createElement, type ComponentProps } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Field, type FieldControl } from "../../renderer/shared/field.js";

type Props = Omit<ComponentProps<typeof Field>, "children">;

/** The field's markup with an input that takes what the field hands it. */
function render(props: Props): { html: string; r: Reader } {
  const html = renderToStaticMarkup(
    createElement(Field, {
      ...props,
      children: (control: FieldControl) => createElement("input", control),
    }),
  );
  return { html, r: reader(html) };
}

interface Reader {
  /** The first `tag`'s attribute `name`, or null. */
  attr(tag: string, name: string): string | null;
  /** The text inside the span with this id, or null. */
  spanText(id: string): string | null;
}

/** A tiny reader for the rendered markup (no DOM in the unit tests). */
function reader(html: string): Reader {
  const attr = (tag: string, name: string): string | null => {
    const m = new RegExp(`<${tag}\\b[^>]*\\s${name}="([^"]*)"`).exec(html);
    return m ? (m[1] ?? "") : null;
  };
  const spanText = (id: string): string | null => {
    const m = new RegExp(`<span id="${id}"[^>]*>(.*?)</span>`).exec(html);
    return m ? (m[1] ?? "").replace(/<[^>]+>/g, "") : null;
  };
  return { attr, spanText };
}

describe("the one form field", () => {
  it("names the control with its label and describes it with the hint", () => {
    const { r } = render({ label: "Port", hint: "1024 to 65535" });
    const id = r.attr("input", "id") ?? "";
    expect(id).not.toBe("");
    expect(r.attr("label", "for")).toBe(id);
    expect(r.attr("input", "aria-invalid")).toBe("false");
    const described = r.attr("input", "aria-describedby") ?? "";
    expect(r.spanText(described)).toBe("1024 to 65535");
    expect(r.attr("div", "class")).toBe("field");
  });

  it("says the error instead of the hint, marks the value invalid and ties the error to it", () => {
    const { html, r } = render({ label: "Port", hint: "1024 to 65535", error: "Port in use" });
    expect(r.attr("input", "aria-invalid")).toBe("true");
    expect(r.spanText(r.attr("input", "aria-describedby") ?? "")).toBe("Port in use");
    expect(html).not.toContain("1024 to 65535");
    expect(r.attr("div", "class")).toBe("field field-bad");
  });

  it("adds another describing element after its own note", () => {
    const { r } = render({ label: "Downloads", hint: "1 to 10", describedBy: "note-1" });
    const ids = (r.attr("input", "aria-describedby") ?? "").split(" ");
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe("note-1");
    expect(r.spanText(ids[0] ?? "")).toBe("1 to 10");
  });

  it("wears the admin's class names when asked, with the changed mark", () => {
    const { r } = render({ label: "Days", error: "Too many", changed: true, look: "adm-field" });
    expect(r.attr("div", "class")).toBe("adm-field adm-field-bad adm-field-changed");
    expect(r.attr("span", "class")).toBe("adm-field-error");
  });

  it("keeps the hint beside the error in one note for the desktop settings", () => {
    const { html, r } = render({
      label: "Proxy port",
      hint: "Restarts the service.",
      error: "Port in use",
      notesTogether: true,
      name: "proxyPort",
    });
    expect(r.attr("div", "data-field")).toBe("proxyPort");
    const notes = r.attr("input", "aria-describedby") ?? "";
    expect(notes).toMatch(/-notes$/);
    expect(html).toContain(
      `<span id="${notes}"><span class="field-error">Port in use </span>` +
        `<span class="field-hint">Restarts the service.</span></span>`,
    );
  });

  it("describes nothing when there is neither hint nor error", () => {
    const { r } = render({ label: "Name" });
    expect(r.attr("input", "aria-describedby")).toBeNull();
  });
});

import { Component, StrictMode, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

/** Never a blank page: a render failure shows its message and a reload button. */
export class Boundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <main className="auth">
        <div className="auth-box" role="alert">
          <h1>Something went wrong / 出错了</h1>
          <p>{this.state.error.message}</p>
          <button type="button" onClick={() => window.location.reload()}>
            Reload / 重新加载
          </button>
        </div>
      </main>
    );
  }
}

/** Renders a page's root component inside the boundary. */
export function mount(Root: () => ReactNode): void {
  const element = document.getElementById("root");
  if (element)
    createRoot(element).render(
      <StrictMode>
        <Boundary>
          <Root />
        </Boundary>
      </StrictMode>,
    );
}

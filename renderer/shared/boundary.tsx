import { Component, type ReactNode } from "react";

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

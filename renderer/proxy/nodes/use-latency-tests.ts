import { useState } from "react";
import type { NodeTestResults } from "../../../server/contract/proxy.js";
import { ApiError, api } from "../api.js";
import { sayError, type Say } from "../parts/ui.js";

const TEST_CHUNK = 500; // the API takes 1..500 ids per call

/**
 * Latency tests of the Nodes screen: the figures so far, the ids being tested (their old figures
 * hidden until the new ones arrive), which test runs ("all", a group id, or "") and its failure.
 * `refusedNoCore` is set when the service said the core is stopped.
 */
export function useLatencyTests() {
  const [results, setResults] = useState<NodeTestResults>({});
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());
  const [testing, setTesting] = useState<string>("");
  // Worded when shown, so a change of language rewords it.
  const [testError, setTestError] = useState<Say | null>(null);
  const [refusedNoCore, setRefusedNoCore] = useState(false);

  const test = async (key: string, ids: string[]) => {
    if (ids.length === 0) return;
    setTesting(key);
    setTestError(null);
    setPending(new Set(ids));
    setResults((prev) => {
      const next = { ...prev };
      for (const id of ids) delete next[id];
      return next;
    });
    try {
      for (let i = 0; i < ids.length; i += TEST_CHUNK) {
        const chunk = ids.slice(i, i + TEST_CHUNK);
        const part = await api("POST /nodes/test", { body: { ids: chunk } });
        setResults((prev) => ({ ...prev, ...part }));
        const done = new Set(chunk);
        setPending((prev) => new Set([...prev].filter((id) => !done.has(id))));
      }
    } catch (err) {
      setTestError(() => sayError(err));
      // The core stopped since the page looked: the buttons wait for it from now on.
      if (err instanceof ApiError && err.code === "node.test_needs_core") setRefusedNoCore(true);
    }
    setPending(new Set());
    setTesting("");
  };
  return { results, pending, testing, testError, refusedNoCore, test };
}

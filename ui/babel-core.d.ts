// Just what vite.config.ts uses of @babel/core (it ships no types of its own).
declare module "@babel/core" {
  export interface TransformResult {
    code?: string | null;
    map?: { mappings: string } | null;
  }
  export function transformAsync(code: string, options: Record<string, unknown>): Promise<TransformResult | null>;
}

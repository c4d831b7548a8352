import { useRef, type ReactNode } from 'react';

/**
 * A button that opens the file picker (a hidden <input type="file">) and hands the chosen file
 * on. The input is cleared after each pick so choosing the same file again fires again.
 */
export function FileButton({ accept, onFile, disabled, testId, title, children }: { accept: string; onFile(file: File): void; disabled?: boolean; testId: string; title: string; children: ReactNode }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button onClick={() => input.current?.click()} disabled={disabled} data-testid={testId} title={title}>
        {children}
      </button>
      <input
        ref={input}
        type="file"
        accept={accept}
        hidden
        data-testid={`${testId}-file`}
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) onFile(f);
          e.target.value = '';
        }}
      />
    </>
  );
}

// Helpers for showing what servers sent, as the Rust side shaped it (a tool result, a prompt's messages, a resource's
// contents): images only as base64 data: URLs of raster/SVG image types, sizes in words.

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|bmp|avif|svg\+xml)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A data: URL for an image, or null when the type or the data is not what an image may be. */
export function imageSrc(mimeType: string | null, data: string | null): string | null {
  if (mimeType === null || data === null) return null;
  const clean = data.replace(/\s/g, "");
  if (!IMAGE_TYPES.test(mimeType.toLowerCase()) || !BASE64.test(clean)) return null;
  return `data:${mimeType.toLowerCase()};base64,${clean}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

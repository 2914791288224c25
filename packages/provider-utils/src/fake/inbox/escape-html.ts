const entities: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML element content and quoted attribute values: a message body is anyone's text. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (character) => entities[character]!);
}

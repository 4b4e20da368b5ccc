import type { Html } from './html.js';
import type { Request } from './respond.js';
import type { ConsoleSource } from './source.js';

/** What a page (GET or HEAD) is answered with. */
export interface PageRequest extends Request {
  source: ConsoleSource;
  /** The sign-out form's token, for a session signed in on the login page. */
  signOut: string | undefined;
  show(title: string, body: Html): void;
  notFound(message: string, back: { href: string; label: string }): void;
  /** The session's form token (the file page's forms). */
  csrf: string;
  /** The one-time token of a confirm page's form posting to `action`. */
  once(action: string): string;
  /** Who acts, when the sign-in names a person. */
  actor: string | undefined;
  /** The signed-in role may act: pages show action links and buttons only then. */
  canAct: boolean;
}

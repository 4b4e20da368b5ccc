import type { Readable } from 'node:stream';
import type { Drop, DropEntry, FolderRole, MoveOptions, OpenedFile, WriteOptions, WriteResult, WriteSource } from './drop.js';

/**
 * The members of a compressed inbox file as a drop of their own: its inbox is the private folder they were
 * expanded into (a LocalDrop), every other folder is the real drop's, so each member's result file lands in the
 * real outbox. It carries the real drop's name: the journal claims members on the drop they came from.
 */
export class MemberDrop implements Drop {
  constructor(private readonly real: Drop, private readonly members: Drop) {}

  get name(): string {
    return this.real.name;
  }

  get type(): Drop['type'] {
    return this.real.type;
  }

  private of(folder: FolderRole): Drop {
    return folder === 'inbox' ? this.members : this.real;
  }

  list(folder: FolderRole, filter?: (name: string) => boolean): Promise<DropEntry[]> {
    return this.of(folder).list(folder, filter);
  }

  stat(folder: FolderRole, name: string): Promise<DropEntry | undefined> {
    return this.of(folder).stat(folder, name);
  }

  openFile(folder: FolderRole, name: string): Promise<OpenedFile> {
    return this.of(folder).openFile(folder, name);
  }

  openRead(folder: FolderRole, name: string): Promise<Readable> {
    return this.of(folder).openRead(folder, name);
  }

  writeAtomic(folder: FolderRole, name: string, source: WriteSource, options?: WriteOptions): Promise<WriteResult> {
    return this.of(folder).writeAtomic(folder, name, source, options);
  }

  /** Members are never moved (they are processed with `dispose: false`; the container is moved once they are done). */
  move(fromFolder: FolderRole, name: string, toFolder: FolderRole, options?: MoveOptions): Promise<string> {
    return fromFolder === 'inbox' ? Promise.resolve(name) : this.real.move(fromFolder, name, toFolder, options);
  }

  remove(folder: FolderRole, name: string): Promise<boolean> {
    return this.of(folder).remove(folder, name);
  }

  /** Closes the members' drop; the real drop belongs to the runtime. */
  close(): Promise<void> {
    return this.members.close();
  }
}

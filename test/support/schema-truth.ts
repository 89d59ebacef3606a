// Test helper for "schema truth": reads the Kysely `DB` interface of src/db/schema.ts with the TypeScript
// compiler, reads the migrated database from information_schema, and lists every place where they disagree.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE, sql, type Kysely } from 'kysely';
import ts from 'typescript';

export const SCHEMA_PATH = fileURLToPath(new URL('../../src/db/schema.ts', import.meta.url));
const TSCONFIG_PATH = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
const THIS_FILE = 'test/support/schema-truth.ts';

/**
 * How each SQL type (information_schema udt_name) reads in the app on both back ends, with the parsers
 * src/db/index.ts installs, as the class of TS select type schema.ts must declare for it. An array type
 * (`_int4`) reads as an array of its element (`number[]`). A type missing here is reported, not guessed:
 * add it when a migration starts using it.
 */
const READS_AS: Readonly<Record<string, TypeClass>> = {
  text: 'string',
  varchar: 'string',
  bpchar: 'string',
  uuid: 'string',
  citext: 'string',
  // Our int8 and numeric parsers return base-10 strings, so large values stay exact.
  int8: 'string',
  numeric: 'string',
  int2: 'number',
  int4: 'number',
  float4: 'number',
  float8: 'number',
  bool: 'boolean',
  // Our date parser returns the 'YYYY-MM-DD' text on both back ends.
  date: 'string',
  timestamptz: 'Date',
  timestamp: 'Date',
  bytea: 'bytes',
  // Parsed JSON: schema.ts may say `unknown`, an object type (Record, an interface) or an array type.
  jsonb: 'json',
  json: 'json',
};

/**
 * The class of a TS type as far as the database is concerned: 'string', 'number', 'boolean', 'bigint',
 * 'Date', 'bytes' (Buffer, Uint8Array), 'object', 'unknown' (also any), `${element}[]` for arrays, and
 * 'json' only as an expectation (parsed JSON: 'unknown', 'object' or an array). A union of classes is
 * joined with ' | ' and matches nothing.
 */
type TypeClass = string;

export interface DeclaredColumn {
  name: string;
  /** The select type as the compiler prints it, e.g. "string | null". */
  selectText: string;
  /** The class of the select type without null. */
  typeClass: TypeClass;
  /**
   * Whether the select type includes null. `unknown | null` is just `unknown`, so for an unknown select
   * type this is read from the insert type (Json's `string | null`), and undefined if that is unknown too.
   */
  nullable: boolean | undefined;
  /** never: the app cannot write it; omittable: undefined is allowed; null: null is (so Kysely lets an insert omit it). */
  insert: 'required' | 'omittable' | 'null' | 'never';
  insertText: string;
  updateNever: boolean;
}

export interface DeclaredRelation {
  name: string;
  columns: DeclaredColumn[];
}

export interface ActualColumn {
  name: string;
  udt: string;
  nullable: boolean;
  /** How the database fills the column when an insert omits it, if it does. */
  fill: 'default' | 'identity by default' | 'identity always' | 'generated always' | undefined;
}

export interface ActualRelation {
  name: string;
  kind: 'table' | 'view';
  columns: ActualColumn[];
}

function compilerOptions(): ts.CompilerOptions {
  const { config, error } = ts.readConfigFile(TSCONFIG_PATH, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.compilerOptions, dirname(TSCONFIG_PATH));
  if (errors.length > 0) throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  // null only shows in types under strictNullChecks; keep it on whatever tsconfig says.
  return { ...options, noEmit: true, strict: true, strictNullChecks: true };
}

// Parsed library files (lib.d.ts, kysely, @types/node), shared by every program this process builds.
const sourceFileCache = new Map<string, ts.SourceFile>();

/**
 * Reads the `DB` interface of src/db/schema.ts (or of `text`, standing in for that file) with the type
 * checker, so aliases such as Int8, Timestamp or Json<T> resolve to what Kysely sees.
 */
export function readDeclaredSchema(text?: string): DeclaredRelation[] {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile } = host;
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (resolve(fileName) === SCHEMA_PATH) {
      return text === undefined
        ? getSourceFile.call(host, fileName, languageVersion, onError, shouldCreate)
        : ts.createSourceFile(fileName, text, languageVersion, true);
    }
    let file = sourceFileCache.get(fileName);
    if (file === undefined) {
      file = getSourceFile.call(host, fileName, languageVersion, onError, shouldCreate);
      if (file !== undefined) sourceFileCache.set(fileName, file);
    }
    return file;
  };
  const program = ts.createProgram({ rootNames: [SCHEMA_PATH], options, host });
  const file = program.getSourceFile(SCHEMA_PATH);
  if (file === undefined) throw new Error(`cannot read ${SCHEMA_PATH}`);
  // A type that does not resolve reads as `any`, which would make every check below meaningless.
  const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  if (diagnostics.length > 0) {
    throw new Error(`src/db/schema.ts does not compile:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
  const checker = program.getTypeChecker();
  const declaration = file.statements.find(
    (s): s is ts.InterfaceDeclaration | ts.TypeAliasDeclaration =>
      (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === 'DB',
  );
  if (declaration === undefined) throw new Error('src/db/schema.ts declares no `DB` interface');
  const symbol = checker.getSymbolAtLocation(declaration.name);
  if (symbol === undefined) throw new Error('the `DB` interface has no symbol');
  const dbType = checker.getDeclaredTypeOfSymbol(symbol);
  return checker.getPropertiesOfType(dbType).map((table) => ({
    name: table.name,
    columns: checker
      .getPropertiesOfType(checker.getTypeOfSymbol(table))
      .map((column) => readColumn(checker, column)),
  }));
}

function readColumn(checker: ts.TypeChecker, column: ts.Symbol): DeclaredColumn {
  const type = checker.getTypeOfSymbol(column);
  // ColumnType<S, I, U> (and so Generated<S>) is an object type with these three phantom properties.
  const part = (name: string): ts.Type => {
    const property = type.getProperty(name);
    return property === undefined ? type : checker.getTypeOfSymbol(property);
  };
  const select = part('__select__');
  const insert = part('__insert__');
  const update = part('__update__');
  const selectParts = partsOf(select);
  const insertParts = partsOf(insert);
  const optional = (column.flags & ts.SymbolFlags.Optional) !== 0;
  const hasNull = (parts: readonly ts.Type[]): boolean => parts.some((t) => (t.flags & ts.TypeFlags.Null) !== 0);
  const absorbsNull = (t: ts.Type): boolean => (t.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) !== 0;
  return {
    name: column.name,
    selectText: checker.typeToString(select),
    typeClass: classOf(checker, selectParts.filter((t) => (t.flags & ts.TypeFlags.Null) === 0)),
    nullable: !absorbsNull(select) ? hasNull(selectParts) : !absorbsNull(insert) ? hasNull(insertParts) : undefined,
    insert:
      insert.flags & ts.TypeFlags.Never
        ? 'never'
        : optional || insertParts.some((t) => (t.flags & ts.TypeFlags.Undefined) !== 0)
          ? 'omittable'
          : insertParts.some((t) => (t.flags & ts.TypeFlags.Null) !== 0)
            ? 'null'
            : 'required',
    insertText: checker.typeToString(insert),
    updateNever: (update.flags & ts.TypeFlags.Never) !== 0,
  };
}

const partsOf = (type: ts.Type): readonly ts.Type[] => (type.isUnion() ? type.types : [type]);

function classOf(checker: ts.TypeChecker, parts: readonly ts.Type[]): TypeClass {
  const classes = new Set(parts.map((t) => classOfPart(checker, t)));
  return [...classes].sort().join(' | ');
}

function classOfPart(checker: ts.TypeChecker, type: ts.Type): TypeClass {
  const f = type.flags;
  if (f & ts.TypeFlags.StringLike) return 'string';
  if (f & ts.TypeFlags.NumberLike) return 'number';
  if (f & ts.TypeFlags.BooleanLike) return 'boolean';
  if (f & ts.TypeFlags.BigIntLike) return 'bigint';
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return 'unknown';
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    return `${element === undefined ? 'unknown' : classOf(checker, partsOf(element))}[]`;
  }
  if (f & ts.TypeFlags.Object) {
    const name = type.getSymbol()?.getName();
    if (name === 'Date') return 'Date';
    if (name === 'Buffer' || name === 'Uint8Array') return 'bytes';
    return 'object';
  }
  return checker.typeToString(type);
}

/** Every table and view of the public schema, except the bookkeeping tables of Kysely's Migrator. */
export async function readDatabaseSchema<T>(db: Kysely<T>): Promise<ActualRelation[]> {
  const { rows } = await sql<{
    table_name: string;
    table_type: string;
    column_name: string | null;
    udt_name: string | null;
    is_nullable: string | null;
    column_default: string | null;
    is_identity: string | null;
    identity_generation: string | null;
    is_generated: string | null;
  }>`
    SELECT t.table_name, t.table_type, c.column_name, c.udt_name, c.is_nullable, c.column_default,
           c.is_identity, c.identity_generation, c.is_generated
    FROM information_schema.tables t
    LEFT JOIN information_schema.columns c ON c.table_schema = t.table_schema AND c.table_name = t.table_name
    WHERE t.table_schema = 'public' AND t.table_type IN ('BASE TABLE', 'VIEW')
      AND t.table_name NOT IN (${DEFAULT_MIGRATION_TABLE}, ${DEFAULT_MIGRATION_LOCK_TABLE})
    ORDER BY t.table_name, c.ordinal_position`.execute(db);
  const relations = new Map<string, ActualRelation>();
  for (const r of rows) {
    let relation = relations.get(r.table_name);
    if (relation === undefined) {
      relation = { name: r.table_name, kind: r.table_type === 'VIEW' ? 'view' : 'table', columns: [] };
      relations.set(r.table_name, relation);
    }
    if (r.column_name === null || r.udt_name === null) continue;
    relation.columns.push({
      name: r.column_name,
      udt: r.udt_name,
      nullable: r.is_nullable === 'YES',
      fill:
        r.is_generated === 'ALWAYS'
          ? 'generated always'
          : r.is_identity === 'YES'
            ? r.identity_generation === 'ALWAYS'
              ? 'identity always'
              : 'identity by default'
            : r.column_default !== null
              ? 'default'
              : undefined,
    });
  }
  return [...relations.values()];
}

/** What the app reads from a column of this SQL type, or undefined when READS_AS has no entry for it. */
function readsAs(udt: string): TypeClass | undefined {
  if (udt.startsWith('_')) {
    const element = readsAs(udt.slice(1));
    return element === undefined ? undefined : `${element}[]`;
  }
  return READS_AS[udt];
}

function classMatches(expected: TypeClass, actual: TypeClass): boolean {
  if (expected.endsWith('[]')) return actual.endsWith('[]') && classMatches(expected.slice(0, -2), actual.slice(0, -2));
  if (expected === 'json') return actual === 'unknown' || actual === 'object' || actual.endsWith('[]');
  return expected === actual;
}

const describeExpected = (c: TypeClass): string =>
  c === 'json' ? 'parsed JSON (unknown, an object type or an array type)' : c;
const sqlText = (c: ActualColumn): string => `${c.udt} ${c.nullable ? 'NULL' : 'NOT NULL'}`;

/**
 * Every disagreement between schema.ts and the database, one line each ("table.column: what schema.ts says;
 * what the database says"), sorted. Views are checked for their columns and types only: PostgreSQL reports
 * every view column as nullable, and a view has no defaults.
 */
export function compareSchemas(declared: readonly DeclaredRelation[], actual: readonly ActualRelation[]): string[] {
  const out: string[] = [];
  const actualByName = new Map(actual.map((r) => [r.name, r]));
  const declaredNames = new Set(declared.map((r) => r.name));
  for (const relation of actual) {
    if (!declaredNames.has(relation.name)) {
      out.push(`${relation.name}: schema.ts does not declare it; the database has this ${relation.kind}`);
    }
  }
  for (const relation of declared) {
    const found = actualByName.get(relation.name);
    if (found === undefined) {
      out.push(`${relation.name}: schema.ts declares it; the database has no table or view of that name`);
      continue;
    }
    const columns = new Map(found.columns.map((c) => [c.name, c]));
    const declaredColumns = new Set(relation.columns.map((c) => c.name));
    for (const column of found.columns) {
      if (!declaredColumns.has(column.name)) {
        out.push(`${relation.name}.${column.name}: schema.ts does not declare it; the database has ${sqlText(column)}`);
      }
    }
    for (const column of relation.columns) {
      const db = columns.get(column.name);
      const where = `${relation.name}.${column.name}`;
      if (db === undefined) {
        out.push(`${where}: schema.ts declares ${column.selectText}; the database has no such column`);
        continue;
      }
      out.push(...compareColumn(where, found.kind, column, db));
    }
  }
  return out.sort();
}

function compareColumn(where: string, kind: 'table' | 'view', declared: DeclaredColumn, db: ActualColumn): string[] {
  const out: string[] = [];
  const expected = readsAs(db.udt);
  if (expected === undefined) {
    out.push(`${where}: the database type ${db.udt} has no mapping in ${THIS_FILE} (READS_AS); add one`);
  } else if (!classMatches(expected, declared.typeClass)) {
    out.push(
      `${where}: schema.ts says ${declared.selectText}${declared.typeClass === declared.selectText ? '' : ` (${declared.typeClass})`}; the database says ${db.udt}, which reads as ${describeExpected(expected)}`,
    );
  }
  if (kind === 'view') return out;

  if (declared.nullable !== undefined && declared.nullable !== db.nullable) {
    const how = declared.typeClass === 'unknown' ? `, insert type ${declared.insertText}` : '';
    out.push(
      `${where}: schema.ts says ${declared.selectText} (${declared.nullable ? 'nullable' : 'not nullable'}${how}); the database says ${sqlText(db)}`,
    );
  }
  if (db.fill === 'identity always' || db.fill === 'generated always') {
    // Such a column refuses a written value (unless OVERRIDING SYSTEM VALUE), on insert and on update.
    if (declared.insert !== 'never' || !declared.updateNever) {
      out.push(
        `${where}: schema.ts lets the app write it (insert type ${declared.insertText}); the database makes it ${db.fill.toUpperCase()} and refuses written values: declare ColumnType<S, never, never>`,
      );
    }
  } else if (db.fill !== undefined && declared.insert === 'required') {
    out.push(
      `${where}: schema.ts requires it on insert (insert type ${declared.insertText}); the database fills it (${db.fill}): declare Generated<S> or a ColumnType whose insert type allows undefined`,
    );
  } else if (db.fill === undefined && declared.insert === 'never') {
    out.push(`${where}: schema.ts never lets the app write it; the database has no default, identity or generated value for it`);
  } else if (db.fill === undefined && declared.insert === 'omittable' && !db.nullable) {
    out.push(
      `${where}: schema.ts lets an insert omit it (insert type ${declared.insertText}); the database says ${sqlText(db)} with no default`,
    );
  }
  return out;
}

/**
 * The SDK `Client` with one per-call cost taken out. For a request without an explicit
 * result schema, the SDK (v2) finds the era's result validator by probing it with
 * `validateResult(method, undefined)` on every request: a full parse of `undefined`
 * that fails, and whose zod error is then formatted into a message nobody reads (~11 µs
 * of a tool call's client CPU in `bench/mcp-call --profile`, the largest single cost the
 * SDK adds over v1). Here the probe runs once per era codec and method; the validator it
 * yields is the SDK's own (`codec.validateResult`), handed to `request()` as an explicit
 * schema, which takes the same path inside the SDK (the era check, decoding, validation).
 * Only `tools/call` goes this way: it is the hot path, and for it the explicit-schema path
 * of `request()` differs from the implicit one in nothing but the probe. Upstream, the
 * probe could be a registry lookup (`hasResultMethod`) and this class would go.
 *
 * It also lends its result validator and its JSON Schema validator (the one the SDK checks
 * structured content with) to the hub's own `tools/call` path (`direct-tool-calls.ts`).
 */
import { Client } from '@modelcontextprotocol/client';
import type { Request, RequestMethod, RequestOptions, ResultTypeMap, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

type WireCodec = ReturnType<Client['_wireCodec']>;
type ClientOptions = NonNullable<ConstructorParameters<typeof Client>[1]>;
type ClientInfo = ConstructorParameters<typeof Client>[0];
/** The SDK's JSON Schema validator provider (`ClientOptions.jsonSchemaValidator`). */
export type SchemaValidatorProvider = NonNullable<ClientOptions['jsonSchemaValidator']>;

/** The methods whose result validator is looked up once instead of on every request. */
const CACHED_METHODS: ReadonlySet<string> = new Set(['tools/call']);

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

/** What the SDK's `codecResultValidator` builds: the era's result check as a Standard Schema. */
function resultValidator(codec: WireCodec, method: string): StandardSchemaV1 {
  return {
    '~standard': {
      version: 1,
      vendor: 'mcp-wire-codec',
      validate(value: unknown) {
        const outcome = codec.validateResult(method, value);
        if (outcome.ok) return { value: outcome.value };
        return { issues: [{ message: outcome.reason === 'invalid' ? outcome.message : `not-in-era: ${method}` }] };
      },
    },
  };
}

export class WeftClient extends Client {
  /** Per era codec (one object per era in the SDK), per method: the validator, or null when the era lacks the method. */
  readonly #validators = new Map<WireCodec, Map<string, StandardSchemaV1 | null>>();
  /** The provider the SDK compiles tools' output schemas with (its Node default unless one is given). */
  readonly schemaValidators: SchemaValidatorProvider;

  constructor(info: ClientInfo, options?: ClientOptions) {
    const schemaValidators = options?.jsonSchemaValidator ?? new AjvJsonSchemaValidator();
    super(info, { ...options, jsonSchemaValidator: schemaValidators });
    this.schemaValidators = schemaValidators;
  }

  override request<M extends RequestMethod>(
    request: { method: M; params?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<ResultTypeMap[M]>;
  override request<T extends StandardSchemaV1>(
    request: Request,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<StandardSchemaV1.InferOutput<T>>;
  override request(request: Request, schemaOrOptions?: StandardSchemaV1 | RequestOptions, options?: RequestOptions): Promise<unknown> {
    if (isStandardSchema(schemaOrOptions)) return super.request(request, schemaOrOptions, options);
    // Before a version is negotiated, the SDK pins lifecycle methods to an era by method.
    const validator =
      CACHED_METHODS.has(request.method) && this._negotiatedProtocolVersion !== undefined ? this.#validatorFor(request.method) : null;
    return validator
      ? super.request(request, validator, schemaOrOptions)
      : super.request(request as { method: RequestMethod }, schemaOrOptions);
  }

  /**
   * The negotiated era's own check of a `tools/call` result (the SDK's zod schema): the
   * value it yields, or what is wrong. Only after a version was negotiated.
   */
  checkToolResult(value: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
    const validator = this.#validatorFor('tools/call');
    if (!validator) return { ok: false, message: 'tools/call is not in the negotiated protocol version' };
    const outcome = validator['~standard'].validate(value);
    if (outcome instanceof Promise) return { ok: false, message: 'the result check is asynchronous' };
    return outcome.issues
      ? { ok: false, message: outcome.issues.map((issue) => issue.message).join(', ') }
      : { ok: true, value: outcome.value };
  }

  #validatorFor(method: string): StandardSchemaV1 | null {
    const codec = this._wireCodec();
    let byMethod = this.#validators.get(codec);
    if (!byMethod) {
      byMethod = new Map();
      this.#validators.set(codec, byMethod);
    }
    let validator = byMethod.get(method);
    if (validator === undefined) {
      const probe = codec.validateResult(method, undefined);
      validator = !probe.ok && probe.reason === 'not-in-era' ? null : resultValidator(codec, method);
      byMethod.set(method, validator);
    }
    return validator;
  }
}

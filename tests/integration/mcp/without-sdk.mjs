// Loaded with `node --import`: makes @modelcontextprotocol/sdk unresolvable, as in an
// install that left out the optional peer dependency.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('@modelcontextprotocol/sdk')) {
      const error = new Error(`Cannot find package '${specifier}' (hidden by without-sdk.mjs)`);
      error.code = 'ERR_MODULE_NOT_FOUND';
      throw error;
    }
    return next(specifier, context);
  },
});

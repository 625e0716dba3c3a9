#!/usr/bin/env node
// The `reputation` command. The code is TypeScript run through tsx: no build step to forget.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');

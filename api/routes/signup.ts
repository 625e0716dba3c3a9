// GET /signup: where a 401 signup_required points when no SIGNUP_URL (e.g. a dashboard) is set.
// Keys are issued by whoever runs the service, so the page says how to ask for one.
import type Router from '@koa/router';
import { planNames } from '../plans.ts';

export function signupRoutes(router: Router): void {
  router.get('/signup', (ctx) => {
    ctx.body = {
      message:
        'API keys are issued by the operator of this service. Ask them for a key on the plan you need; ' +
        'they create it with `reputation accounts create --plan <plan>`. Send it in the X-API-Key header.',
      plans: planNames,
    };
  });
}

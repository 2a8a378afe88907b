// Login: the token goes once in a POST body; the server answers with an HttpOnly session
// cookie. The form never submits natively, so the token cannot land in a URL.
import { api, errorText } from './api.js';
import { h, notice } from './dom.js';

export async function renderLogin(root) {
  const message = h('p', { role: 'alert', hidden: true });
  const token = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    spellcheck: 'false',
  });
  const form = h(
    'form',
    { class: 'card login', method: 'post', action: '#/login', onsubmit: submit },
    h('h1', {}, 'Log in to weft'),
    h('p', { class: 'muted' }, 'Paste the token that ', h('code', {}, 'weft serve'), ' printed (or the one in its token file).'),
    h('label', { for: 'token' }, 'Token'),
    token,
    message,
    h('button', { type: 'submit', class: 'primary' }, 'Log in'),
  );
  root.append(form);
  token.focus();

  async function submit(event) {
    event.preventDefault();
    notice(message, '');
    try {
      await api('POST', '/login', { token: token.value.trim() });
      token.value = '';
      const wanted = sessionStorage.getItem('weft:after-login');
      sessionStorage.removeItem('weft:after-login');
      location.hash = wanted && wanted.startsWith('#/') && wanted !== '#/login' ? wanted : '#/runs';
    } catch (error) {
      notice(message, error.status === 401 ? 'That token is not right. Check it and try again.' : errorText(error));
      token.select();
    }
  }
}

// The app's words in es-MX: es-ES with the words Mexico uses.
import type { Messages } from './en-US.ts';
import { esES } from './es-ES.ts';

const esMX: Messages = {
  ...esES,
  'market.depth.lmsr': 'Costo de comprar cada resultado según el tamaño de la orden',
  'market.depth.cost': 'Costo',
  'market.depth.avgPrice': 'Precio promedio',
  'leaderboard.title': 'Tabla de líderes',
  'nav.leaderboard': 'Tabla de líderes',
  'leaderboard.who': 'Cartera',
  'market.holders.wallet': 'Cartera',
  'market.holders.wallets': 'Carteras con acciones',
  'profile.marketsEmpty': 'Esta cartera no ha creado ningún mercado.',
  'error.WALLET_AUTH_REQUIRED': 'Inicia sesión con tu cartera para ver esto.',
  'error.FORBIDDEN': 'Tu cartera no tiene permiso para ver esto.',
  'category.FUN': 'Entretenimiento',
  'markets.clear': 'Borrar filtros',
};

export default esMX;

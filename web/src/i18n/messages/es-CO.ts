// The app's words in es-CO: es-ES with the words Colombia uses.
import type { Messages } from './en-US.ts';
import { esES } from './es-ES.ts';

const esCO: Messages = {
  ...esES,
  'markets.searchHint': 'Escribe mínimo 2 caracteres',
  'market.depth.lmsr': 'Costo de comprar cada resultado según el tamaño de la orden',
  'market.depth.cost': 'Costo',
  'market.depth.avgPrice': 'Precio promedio',
  'leaderboard.title': 'Ranking',
  'nav.leaderboard': 'Ranking',
  'category.FUN': 'Entretenimiento',
  'leaderboard.who': 'Billetera',
  'error.SERVICE_UNAVAILABLE': 'El servicio está ocupado o actualizándose con la cadena. Intenta de nuevo en unos segundos.',
};

export default esCO;

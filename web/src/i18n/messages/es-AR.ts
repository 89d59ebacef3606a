// The app's words in es-AR: es-ES with the voseo and the words Argentina uses.
import type { Messages } from './en-US.ts';
import { esES } from './es-ES.ts';

const esAR: Messages = {
  ...esES,
  'markets.searchHint': 'Escribí al menos 2 caracteres',
  'markets.collateral': 'Colateral',
  'markets.collateral.any': 'Cualquier colateral',
  'market.depth.lmsr': 'Costo de comprar cada resultado según el tamaño de la orden',
  'market.depth.cost': 'Costo',
  'market.depth.avgPrice': 'Precio promedio',
  'leaderboard.title': 'Ranking',
  'nav.leaderboard': 'Ranking',
  'category.FUN': 'Entretenimiento',
  'error.NETWORK_ERROR': 'No se puede conectar con el servidor. Revisá tu conexión y volvé a intentar.',
  'error.API_KEY_REQUIRED': 'Este servidor pide una clave de API para leer esto. Iniciá sesión o pedile a su operador que habilite las lecturas públicas.',
  'error.INVALID_API_KEY': 'La clave que usó esta página no es válida. Recargá la página.',
  'error.WALLET_AUTH_REQUIRED': 'Iniciá sesión con tu billetera para ver esto.',
  'error.RATE_LIMITED': 'Demasiadas solicitudes en poco tiempo. Esperá un minuto y volvé a intentar.',
  'error.NOT_FOUND': 'Esta página no existe (o ya no existe). Revisá el enlace o volvé a los mercados.',
  'error.MARKET_NOT_FOUND': 'Este mercado no existe. Revisá el enlace o volvé a los mercados.',
  'error.INVALID_QUERY': 'Uno de los filtros tiene un valor que el servidor no acepta. Cambialo o quitá los filtros.',
  'error.INVALID_ID': 'Este enlace está mal formado. Revisalo o volvé a los mercados.',
  'error.SERVICE_UNAVAILABLE': 'El servicio está ocupado o poniéndose al día con la cadena. Probá de nuevo en unos segundos.',
  'error.INTERNAL_ERROR': 'Algo salió mal en el servidor. Volvé a intentar; si sigue pasando, avisale al operador.',
  'error.generic': 'Algo salió mal ({code}). Volvé a intentar.',
  'trade.signInFirst': 'Conectá tu billetera e iniciá sesión para operar en este mercado.',
  'trade.cost': 'Pagás',
  'trade.proceeds': 'Recibís',
  'trade.step.approving': 'Aprobá en tu billetera y esperá a la cadena…',
  'trade.step.signing': 'Confirmá la operación en tu billetera…',
  'trade.position.none': 'No tenés acciones de este mercado.',
  'orders.fillsLeft': 'Te quedan {n} ejecuciones este mes (se renuevan el {date})',
  'orders.none': 'No tenés órdenes abiertas en este mercado.',
  'error.APPROVAL_REQUIRED': 'Tu billetera tiene que aprobar primero la operación. Volvé a intentar y aprobala en tu billetera.',
  'error.INSUFFICIENT_BALANCE': 'Tu billetera no tiene saldo suficiente. Bajá el monto o agregá fondos.',
  'error.TRADE_REJECTED': 'El mercado rechaza esta operación (demasiado grande o más acciones de las que hay). Probá con un monto menor.',
  'error.NO_WALLET': 'No se encontró ninguna billetera en el navegador. Instalá o activá una extensión de billetera y recargá la página.',
  'error.WRONG_CHAIN': 'Tu billetera está en otra red. Cambiala a la red de este servidor y volvé a intentar.',
  'error.TX_DROPPED': 'La red descartó la transacción. Volvé a intentar.',
};

export default esAR;
